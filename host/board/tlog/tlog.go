// Package tlog is a board's transparency log: an append-only list of
// records (a board's attestations) in a directory, hashed into a Merkle
// tree (RFC 6962, with golang.org/x/mod/sumdb/tlog, the Go checksum
// database's code) whose every size is published as a checkpoint signed
// with the board's key (golang.org/x/mod/sumdb/note).
//
// A log directory holds
//
//	entries/NNNNNNNN.json  record N, as appended
//	leaves                 record N's hash (RFC 6962 leaf hash), one hex line each
//	checkpoints/NNNNNNNN   the signed checkpoint of the tree of N records
//	checkpoint             the latest signed checkpoint
//
// The leaves are an index, not a trust anchor: they count only when the
// tree they give has the root of a checkpoint that the board's key
// signed. A checkpoint's body is a C2SP tlog-checkpoint: the origin line
// (the board's name), the tree size and the base64 root hash.
package tlog

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	sumtlog "golang.org/x/mod/sumdb/tlog"
)

// Log is the log in a directory.
type Log struct {
	Dir    string
	Origin string // the first line of every checkpoint: the board's name
}

// Checkpoint is a signed checkpoint, opened.
type Checkpoint struct {
	Origin string
	Tree   sumtlog.Tree
	Signed []byte // the note as stored
}

// EntryPath is the path of record i's file.
func (l *Log) EntryPath(i int64) string {
	return filepath.Join(l.Dir, "entries", fmt.Sprintf("%08d.json", i))
}

func (l *Log) checkpointPath(n int64) string {
	return filepath.Join(l.Dir, "checkpoints", fmt.Sprintf("%08d", n))
}

// LatestPath is the path of the latest checkpoint.
func (l *Log) LatestPath() string { return filepath.Join(l.Dir, "checkpoint") }

// Leaves reads the leaf hashes the log recorded, in order.
func (l *Log) Leaves() ([]sumtlog.Hash, error) {
	data, err := os.ReadFile(filepath.Join(l.Dir, "leaves"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("log: %w", err)
	}
	var hs []sumtlog.Hash
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		b, err := hex.DecodeString(strings.TrimSpace(sc.Text()))
		if err != nil || len(b) != sumtlog.HashSize {
			return nil, fmt.Errorf("log: leaves line %d: not a hex SHA-256 hash", line)
		}
		hs = append(hs, sumtlog.Hash(b))
	}
	return hs, nil
}

// Entry reads record i.
func (l *Log) Entry(i int64) ([]byte, error) {
	data, err := os.ReadFile(l.EntryPath(i))
	if err != nil {
		return nil, fmt.Errorf("log: record %d: %w", i, err)
	}
	return data, nil
}

// Size is the number of records the leaves file counts.
func (l *Log) Size() (int64, error) {
	hs, err := l.Leaves()
	return int64(len(hs)), err
}

// Append adds data as the next record, and signs and writes the
// checkpoint of the new tree. It returns the record's index. A board runs
// its commands one at a time (its lock), so that no two appends race.
func (l *Log) Append(data []byte, signer note.Signer) (int64, error) {
	leaves, err := l.Leaves()
	if err != nil {
		return 0, err
	}
	n := int64(len(leaves))
	for _, d := range []string{"entries", "checkpoints"} {
		if err := os.MkdirAll(filepath.Join(l.Dir, d), 0o755); err != nil {
			return 0, fmt.Errorf("log: %w", err)
		}
	}
	if err := os.WriteFile(l.EntryPath(n), data, 0o644); err != nil {
		return 0, fmt.Errorf("log: %w", err)
	}
	h := sumtlog.RecordHash(data)
	leaves = append(leaves, h)
	root, err := sumtlog.TreeHash(n+1, ReaderOf(leaves))
	if err != nil {
		return 0, fmt.Errorf("log: %w", err)
	}
	signed, err := note.Sign(&note.Note{Text: l.body(sumtlog.Tree{N: n + 1, Hash: root})}, signer)
	if err != nil {
		return 0, fmt.Errorf("log: signing the checkpoint: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(l.Dir, "leaves"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return 0, fmt.Errorf("log: %w", err)
	}
	if _, err := fmt.Fprintf(f, "%x\n", h[:]); err != nil {
		f.Close()
		return 0, fmt.Errorf("log: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("log: %w", err)
	}
	if err := os.WriteFile(l.checkpointPath(n+1), signed, 0o644); err != nil {
		return 0, fmt.Errorf("log: %w", err)
	}
	if err := os.WriteFile(l.LatestPath(), signed, 0o644); err != nil {
		return 0, fmt.Errorf("log: %w", err)
	}
	return n, nil
}

// body is a checkpoint's text (C2SP tlog-checkpoint).
func (l *Log) body(t sumtlog.Tree) string {
	return fmt.Sprintf("%s\n%d\n%s\n", l.Origin, t.N, base64.StdEncoding.EncodeToString(t.Hash[:]))
}

// OpenCheckpoint checks msg's signature with v and parses its body, which
// must name origin.
func OpenCheckpoint(msg []byte, v note.Verifier, origin string) (*Checkpoint, error) {
	n, err := note.Open(msg, note.VerifierList(v))
	if err != nil {
		return nil, fmt.Errorf("signature: %w", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return nil, errors.New("body: not origin, size and root hash lines")
	}
	if lines[0] != origin {
		return nil, fmt.Errorf("origin %q, want %q", lines[0], origin)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 {
		return nil, fmt.Errorf("size %q: not a count", lines[1])
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != sumtlog.HashSize {
		return nil, fmt.Errorf("root %q: not a base64 SHA-256 hash", lines[2])
	}
	return &Checkpoint{Origin: origin, Tree: sumtlog.Tree{N: size, Hash: sumtlog.Hash(root)}, Signed: msg}, nil
}

// Latest reads and opens the latest checkpoint.
func (l *Log) Latest(v note.Verifier) (*Checkpoint, error) {
	msg, err := os.ReadFile(l.LatestPath())
	if err != nil {
		return nil, fmt.Errorf("checkpoint: %w", err)
	}
	c, err := OpenCheckpoint(msg, v, l.Origin)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", l.LatestPath(), err)
	}
	return c, nil
}

// Checkpoints lists the sizes of the stored checkpoints.
func (l *Log) Checkpoints() ([]int64, error) {
	ents, err := os.ReadDir(filepath.Join(l.Dir, "checkpoints"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("log: %w", err)
	}
	var ns []int64
	for _, e := range ents {
		n, err := strconv.ParseInt(e.Name(), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("log: checkpoints/%s: not a tree size", e.Name())
		}
		ns = append(ns, n)
	}
	return ns, nil
}

// Stored reads and opens the stored checkpoint of n records.
func (l *Log) Stored(n int64, v note.Verifier) (*Checkpoint, error) {
	msg, err := os.ReadFile(l.checkpointPath(n))
	if err != nil {
		return nil, fmt.Errorf("checkpoint %d: %w", n, err)
	}
	c, err := OpenCheckpoint(msg, v, l.Origin)
	if err != nil {
		return nil, fmt.Errorf("checkpoint of %d records: %w", n, err)
	}
	if c.Tree.N != n {
		return nil, fmt.Errorf("checkpoint file of %d records: its body says %d", n, c.Tree.N)
	}
	return c, nil
}

// ReaderOf serves the stored hashes of the tree whose leaves are leaves,
// computing them (a board's log is small: thousands of records at most).
func ReaderOf(leaves []sumtlog.Hash) sumtlog.HashReader {
	var stored []sumtlog.Hash
	built := false
	return sumtlog.HashReaderFunc(func(idx []int64) ([]sumtlog.Hash, error) {
		if !built {
			built = true
			r := sumtlog.HashReaderFunc(func(ix []int64) ([]sumtlog.Hash, error) {
				out := make([]sumtlog.Hash, len(ix))
				for i, x := range ix {
					if x < 0 || x >= int64(len(stored)) {
						return nil, fmt.Errorf("stored hash %d out of range", x)
					}
					out[i] = stored[x]
				}
				return out, nil
			})
			for n, h := range leaves {
				hs, err := sumtlog.StoredHashesForRecordHash(int64(n), h, r)
				if err != nil {
					return nil, err
				}
				stored = append(stored, hs...)
			}
		}
		out := make([]sumtlog.Hash, len(idx))
		for i, x := range idx {
			if x < 0 || x >= int64(len(stored)) {
				return nil, fmt.Errorf("stored hash %d out of range", x)
			}
			out[i] = stored[x]
		}
		return out, nil
	})
}
