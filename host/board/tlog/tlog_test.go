package tlog_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/mod/sumdb/note"
	sumtlog "golang.org/x/mod/sumdb/tlog"

	"github.com/regretbench/regretbench/host/board/tlog"
)

// TestLog appends records one by one and checks, after each, what a
// verifier checks: the latest checkpoint opens with the key and names
// the log; every record is included in it (x/mod's CheckRecord); every
// earlier checkpoint is a prefix of it (CheckTree); and a checkpoint
// signed by another key, or of another log, does not open.
func TestLog(t *testing.T) {
	skey, vkey, err := note.GenerateKey(rand.Reader, "test-log")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := note.NewSigner(skey)
	if err != nil {
		t.Fatal(err)
	}
	verifier, err := note.NewVerifier(vkey)
	if err != nil {
		t.Fatal(err)
	}
	l := &tlog.Log{Dir: t.TempDir(), Origin: "test-log"}
	const n = 13
	for i := int64(0); i < n; i++ {
		data := []byte(fmt.Sprintf("record %d\n", i))
		got, err := l.Append(data, signer)
		if err != nil || got != i {
			t.Fatalf("append %d: index %d, %v", i, got, err)
		}
		latest, err := l.Latest(verifier)
		if err != nil {
			t.Fatal(err)
		}
		if latest.Tree.N != i+1 {
			t.Fatalf("after %d appends the checkpoint counts %d", i+1, latest.Tree.N)
		}
		leaves, err := l.Leaves()
		if err != nil {
			t.Fatal(err)
		}
		hr := tlog.ReaderOf(leaves)
		for j := int64(0); j <= i; j++ {
			entry, err := l.Entry(j)
			if err != nil {
				t.Fatal(err)
			}
			p, err := sumtlog.ProveRecord(latest.Tree.N, j, hr)
			if err == nil {
				err = sumtlog.CheckRecord(p, latest.Tree.N, latest.Tree.Hash, j, sumtlog.RecordHash(entry))
			}
			if err != nil {
				t.Errorf("size %d: record %d: %v", i+1, j, err)
			}
			old, err := l.Stored(j+1, verifier)
			if err != nil {
				t.Fatal(err)
			}
			tp, err := sumtlog.ProveTree(latest.Tree.N, old.Tree.N, hr)
			if err == nil {
				err = sumtlog.CheckTree(tp, latest.Tree.N, latest.Tree.Hash, old.Tree.N, old.Tree.Hash)
			}
			if err != nil {
				t.Errorf("size %d: the checkpoint of %d records is not a prefix: %v", i+1, j+1, err)
			}
		}
	}

	msg, err := os.ReadFile(l.LatestPath())
	if err != nil {
		t.Fatal(err)
	}
	_, otherV, _ := note.GenerateKey(rand.Reader, "test-log")
	other, _ := note.NewVerifier(otherV)
	if _, err := tlog.OpenCheckpoint(msg, other, "test-log"); err == nil {
		t.Error("a checkpoint opened with another key of the same name")
	}
	if _, err := tlog.OpenCheckpoint(msg, verifier, "another-log"); err == nil {
		t.Error("a checkpoint of test-log opened as another log's")
	}
	if err := os.WriteFile(filepath.Join(l.Dir, "leaves"), []byte("zz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Leaves(); err == nil {
		t.Error("a leaves file that is not hex hashes was read")
	}
}
