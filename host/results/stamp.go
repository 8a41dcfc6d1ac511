package results

import (
	"os"
	"time"
)

// Stamp records in f how it was produced: command, bench's command line
// ("bench" and its arguments; nil keeps the one f holds), the host name
// and the date (UTC, RFC 3339), beside the bench version the engine
// recorded (HostVersion when f has no BenchInfo yet). A report shows them
// so that a reader can reproduce the run. Stamp a file when it is written:
// the tables a run prints do not show them.
func (f *File) Stamp(command []string) {
	if f.Bench == nil {
		f.Bench = &BenchInfo{Version: HostVersion()}
	}
	if command != nil {
		f.Bench.Command = command
	}
	if h, err := os.Hostname(); err == nil {
		f.Bench.Host = h
	}
	f.Bench.Date = time.Now().UTC().Format(time.RFC3339)
}
