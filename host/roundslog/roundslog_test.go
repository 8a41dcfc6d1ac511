package roundslog_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/regretbench/regretbench/host/roundslog"
)

// entry is a made-up record of replication rep in round t: every field
// depends on both, so that a record written in the wrong place shows.
func entry(rep uint64, t int) roundslog.Entry {
	e := roundslog.Entry{Row: int32(rep*1000) + int32(t), Arm: int32(t % 3), Class: int32((t + 1) % 3),
		Reward: float64(t%2) + 0.1*float64(rep), Regret: 1 / float64(t), Oracle: 1}
	if t%4 != 0 { // every fourth round reports no probability
		e.Prob = 1 / float64(2+t%5)
	}
	return e
}

// spoolRun logs policies over replications 0..runs-1 and horizon rounds,
// in batches of batch replications, with each policy's sessions played in
// reverse order (as concurrent sessions may finish), and writes the log.
func spoolRun(t *testing.T, dir string, policies []string, runs, horizon, batch int) string {
	t.Helper()
	sp, err := roundslog.NewSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Remove()
	defer sp.Close()
	for _, p := range policies {
		var batches [][]uint64
		for lo := 0; lo < runs; lo += batch {
			var reps []uint64
			for r := lo; r < min(lo+batch, runs); r++ {
				reps = append(reps, uint64(r))
			}
			batches = append(batches, reps)
		}
		for b := len(batches) - 1; b >= 0; b-- {
			reps := batches[b]
			ss := sp.Session(p, reps, horizon)
			es := make([]roundslog.Entry, len(reps))
			for u := 1; u <= horizon; u++ {
				for i, rep := range reps {
					es[i] = entry(rep, u)
				}
				ss.Round(u, es)
			}
			ss.Close()
		}
	}
	path := filepath.Join(dir, fmt.Sprintf("log-%d.csv.gz", batch))
	if err := sp.Write(path, policies); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSpoolSameBytes: the log is the same bytes however the replications
// were batched, holds every record in order of policy, replication and
// round, reads back to the values written (a label that needs quoting, a
// missing probability), and is one gzip stream to a plain reader.
func TestSpoolSameBytes(t *testing.T) {
	dir := t.TempDir()
	policies := []string{"B, the second", "A"}
	const runs, horizon = 5, 2*roundslog.BlockRounds + 7 // three blocks, the last partial
	var ref []byte
	for _, batch := range []int{5, 1, 2, 3} {
		raw, err := os.ReadFile(spoolRun(t, dir, policies, runs, horizon, batch))
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = raw
		} else if !bytes.Equal(raw, ref) {
			t.Fatalf("batch %d: the log differs from the log of one batch", batch)
		}
	}
	zr, err := gzip.NewReader(bytes.NewReader(ref))
	if err != nil {
		t.Fatal(err)
	}
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if lines[0] != roundslog.Header || len(lines) != 1+len(policies)*runs*horizon {
		t.Fatalf("header %q and %d lines, want %q and %d", lines[0], len(lines), roundslog.Header, 1+len(policies)*runs*horizon)
	}
	if want := `"B, the second",0,1,1,1,2,0.3333333333333333,1,1,1`; lines[1] != want {
		t.Errorf("first record %q, want %q", lines[1], want)
	}

	n := 0
	err = roundslog.ReadFile(filepath.Join(dir, "log-5.csv.gz"), func(r *roundslog.Record) error {
		p, rep, u := n/(runs*horizon), uint64(n/horizon%runs), n%horizon+1
		n++
		e := entry(rep, u)
		want := roundslog.Record{Policy: policies[p], Replication: rep, T: u, Row: int(e.Row), Arm: int(e.Arm), Class: int(e.Class),
			Prob: e.Prob, Reward: e.Reward, Regret: e.Regret, Oracle: e.Oracle}
		if e.Prob == 0 {
			want.Prob = math.NaN()
		}
		got := *r
		if math.IsNaN(got.Prob) != math.IsNaN(want.Prob) || !math.IsNaN(want.Prob) && got.Prob != want.Prob {
			return fmt.Errorf("record %d: prob %v, want %v", n, got.Prob, want.Prob)
		}
		got.Prob, want.Prob = 0, 0
		if got != want {
			return fmt.Errorf("record %d: %+v, want %+v", n, got, want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != len(policies)*runs*horizon {
		t.Errorf("read %d records, want %d", n, len(policies)*runs*horizon)
	}
}

// TestSpoolRefuses: a policy whose session did not play every round, or a
// replication logged twice, is not written; a file that is not a rounds
// log is refused by the reader, naming it.
func TestSpoolRefuses(t *testing.T) {
	dir := t.TempDir()
	sp, err := roundslog.NewSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Remove()
	short := sp.Session("short", []uint64{0}, 3)
	short.Round(1, []roundslog.Entry{{}})
	short.Abort()
	for _, label := range []string{"twice", "twice"} {
		ss := sp.Session(label, []uint64{4}, 1)
		ss.Round(1, []roundslog.Entry{{}})
		ss.Close()
	}
	path := filepath.Join(dir, "x.csv.gz")
	for _, c := range []struct{ label, want string }{
		{"short", `policy "short": a session of it was not played to the end`},
		{"twice", `policy "twice": replication 4 logged twice`},
	} {
		if err := sp.Write(path, []string{c.label}); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.label, err, c.want)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("a refused log was written")
	}
	sp.Close()

	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte("a,b\n1,2\n"))
	zw.Close()
	os.WriteFile(path, buf.Bytes(), 0o600)
	if _, err := roundslog.Open(path); err == nil || !strings.Contains(err.Error(), "rounds log "+path) {
		t.Errorf("a CSV file that is no rounds log: %v", err)
	}
}
