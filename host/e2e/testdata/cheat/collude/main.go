//go:build linux

// Command collude is a plugin for host/cli's sandbox tests
// (sandbox_cheat_linux_test.go), written on the public SDK: two policies
// of one run that talk. The explorer (parameter role=explore) plays round
// robin, pools its replications' rewards, and once every arm has been
// pulled 100 times publishes the best arm a by holding a shared flock(2)
// on lock-a, a file beside its executable that the exploiter, in the same
// plugin directory, may read too. The exploiter (role=exploit) waits for
// that at its first session, up to 15 s, by trying an exclusive lock on
// each lock-i without blocking, then plays the arm it heard in every
// round; it stops waiting at once when the lock is refused outright (a
// sandbox), and then plays round robin. Its diagnostic "heard" is 1 when
// it heard.
package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/regretbench/regretbench/sdk"
)

const pulls = 100 // per arm, before the explorer publishes

func lockFile(a int) string {
	exe, _ := os.Executable()
	return filepath.Join(filepath.Dir(exe), fmt.Sprintf("lock-%d", a))
}

type explorer struct {
	k         int
	sum, n    []float64
	published bool
}

func (e *explorer) Step(st *sdk.BatchStep) error {
	for i, a := range st.PrevArms {
		if i < len(st.PrevRewards) {
			e.sum[a] += st.PrevRewards[i]
			e.n[a]++
		}
	}
	if !e.published && minOf(e.n) >= pulls {
		best := 0
		for a := range e.k {
			if e.sum[a]/e.n[a] > e.sum[best]/e.n[best] {
				best = a
			}
		}
		if fd, err := unix.Open(lockFile(best), unix.O_RDONLY, 0); err == nil {
			// Held for as long as the process lives.
			if unix.Flock(fd, unix.LOCK_SH) != nil {
				unix.Close(fd)
			}
		}
		e.published = true
	}
	for i := range st.Arms {
		st.Arms[i] = int32((st.Round - 1) % e.k)
	}
	return nil
}

func minOf(x []float64) float64 {
	m := x[0]
	for _, v := range x {
		m = min(m, v)
	}
	return m
}

// heard is the arm the exploiter heard, -1 for none; listened: it has.
var (
	heard    = -1
	listened bool
)

// listen waits for the explorer's lock; it returns early when the lock
// is refused (not merely held).
func listen(k int) {
	if listened {
		return
	}
	listened = true
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for a := range k {
			fd, err := unix.Open(lockFile(a), unix.O_RDONLY, 0)
			if err != nil {
				return
			}
			err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
			unix.Close(fd) // and with it the lock, if taken
			if errors.Is(err, unix.EWOULDBLOCK) {
				heard = a
				return
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "cheat-collude: the channel is closed: %v\n", err)
				return
			}
		}
	}
}

type exploiter struct{ k int }

func (x *exploiter) Step(st *sdk.BatchStep) error {
	for i := range st.Arms {
		if heard >= 0 {
			st.Arms[i] = int32(heard)
		} else {
			st.Arms[i] = int32((st.Round - 1) % x.k)
		}
		if st.Diagnostics != nil {
			st.Diagnostics[0][i] = float64(min(heard+1, 1))
		}
	}
	return nil
}

func main() {
	sdk.Serve(sdk.Plugin{
		Name: "cheat-collude", Version: "0.0.1", Diagnostics: []string{"heard"},
		Params: []sdk.Param{{Name: "role", Type: sdk.String, Default: "explore", Doc: "explore or exploit"}},
		NewBatch: func(s sdk.Session, _ []sdk.Replica) (sdk.BatchPolicy, error) {
			if s.Params.String("role") == "exploit" {
				listen(s.Arms)
				return &exploiter{k: s.Arms}, nil
			}
			return &explorer{k: s.Arms, sum: make([]float64, s.Arms), n: make([]float64, s.Arms)}, nil
		},
	})
}
