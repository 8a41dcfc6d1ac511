package results

import (
	"os"
	"slices"
	"testing"
	"time"
)

// TestStamp: Stamp records the command line, the host name and the date
// (UTC, RFC 3339, now), keeps the version the engine recorded or adds
// HostVersion's, and keeps the command line f holds when given none.
func TestStamp(t *testing.T) {
	t.Parallel()
	host, err := os.Hostname()
	if err != nil {
		t.Skipf("hostname: %v", err)
	}
	cmd := []string{"bench", "--scenario", "quick"}
	for _, tc := range []struct {
		name        string
		bench       *BenchInfo
		command     []string
		wantVersion string
		wantCommand []string
	}{
		{"new", nil, cmd, HostVersion(), cmd},
		{"the engine's version kept", &BenchInfo{Version: "v1.2.3"}, cmd, "v1.2.3", cmd},
		{"no command keeps the file's", &BenchInfo{Version: "v1", Command: []string{"bench", "paper"}}, nil, "v1", []string{"bench", "paper"}},
		{"no command, none before", nil, nil, HostVersion(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &File{Bench: tc.bench}
			before := time.Now().UTC().Truncate(time.Second)
			f.Stamp(tc.command)
			after := time.Now().UTC()
			b := f.Bench
			if b == nil {
				t.Fatal("no BenchInfo")
			}
			if b.Version != tc.wantVersion || !slices.Equal(b.Command, tc.wantCommand) || b.Host != host {
				t.Errorf("got %+v, want version %q, command %q, host %q", *b, tc.wantVersion, tc.wantCommand, host)
			}
			d, err := time.Parse(time.RFC3339, b.Date)
			if err != nil || d.Before(before) || d.After(after) || d.Location() != time.UTC {
				t.Errorf("date %q (%v): not UTC RFC 3339 between %v and %v", b.Date, err, before, after)
			}
		})
	}
}
