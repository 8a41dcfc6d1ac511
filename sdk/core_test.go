package sdk

import (
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a clock that moves only when a policy says it worked.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time { return time.Unix(0, c.ns.Load()) }

// randPolicy pulls a random arm with its replica's generator, after
// working for spin on the fake clock.
type randPolicy struct {
	k     int
	r     Replica
	spin  time.Duration
	clock *fakeClock
}

func (p *randPolicy) Select(int) int {
	p.clock.ns.Add(int64(p.spin))
	return p.r.Rand.IntN(p.k)
}

func (p *randPolicy) Observe(int, int, float64) {}

// TestRoundSplit: a cheap round stays on one goroutine, an expensive one is
// split over the cores unless every core has a session of its own, and the
// split never changes what a replication plays.
func TestRoundSplit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	open := func(spin time.Duration) (*core, uint64) {
		clock := new(fakeClock)
		c, err := newCore(Plugin{Name: "rand", Version: "0", New: func(s Session, r Replica) (Policy, error) {
			return &randPolicy{k: s.Arms, r: r, spin: spin, clock: clock}, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		reps := make([]uint64, 128)
		for i := range reps {
			reps[i] = uint64(i)
		}
		id, err := c.open(&openRequest{Arms: 5, Horizon: 30, Replications: reps, Seed: 3, Family: Gaussian, NoiseSD: 1})
		if err != nil {
			t.Fatal(err)
		}
		// Rounds are timed by the policies' declared work, not the wall
		// clock, so a loaded machine cannot make a cheap round look heavy.
		c.sessions[id].pol.(*replicaBatch).now = clock.now
		return c, id
	}
	// play returns every arm played and how many rounds were heavy enough
	// to split the next.
	play := func(c *core, id uint64, force bool) ([]int32, int) {
		b := c.sessions[id].pol.(*replicaBatch)
		heavy := 0
		var all, prev []int32
		var rewards []float64
		for round := 1; round <= 30; round++ {
			if force {
				b.work = fanOutWork
			}
			res, err := c.step(id, round, prev, rewards, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if b.work >= fanOutWork {
				heavy++
			}
			all = append(all, res.Arms...)
			prev = slices.Clone(res.Arms)
			rewards = make([]float64, len(prev))
		}
		return all, heavy
	}
	c, id := open(0)
	cheap, heavy := play(c, id, false)
	if heavy != 0 {
		t.Errorf("%d of 30 rounds of 128 free replications split the next", heavy)
	}
	// Every round (the session forces none) costs 128 x 5 us, above
	// fanOutWork.
	c, id = open(5 * time.Microsecond)
	if _, heavy := play(c, id, false); heavy != 30 {
		t.Errorf("%d of the 30 rounds of 128 replications of 5 us each split the next, want all", heavy)
	}
	b := c.sessions[id].pol.(*replicaBatch)
	b.work = fanOutWork
	var more []uint64
	for n := 1; n <= 4; n++ {
		want := 1
		if n < 4 {
			want = 4
		}
		if got := b.ways(); got != want {
			t.Errorf("a heavy round with %d sessions open on 4 cores is split %d ways, want %d", n, got, want)
		}
		id, err := c.open(&openRequest{Arms: 5, Horizon: 30, Replications: []uint64{0}, Family: Gaussian, NoiseSD: 1})
		if err != nil {
			t.Fatal(err)
		}
		more = append(more, id)
	}
	for _, id := range more {
		if err := c.close(id); err != nil {
			t.Fatal(err)
		}
	}
	if b.ways() != 4 {
		t.Errorf("a heavy round alone on 4 cores is split %d ways, want 4", b.ways())
	}
	c, id = open(0)
	if forced, _ := play(c, id, true); !slices.Equal(forced, cheap) {
		t.Fatal("the same replications played in one chunk and in four differ")
	}
}

// TestNewCoreChecksDefaults: a plugin whose own default lies outside its
// declared range does not start.
func TestNewCoreChecksDefaults(t *testing.T) {
	p := Plugin{Name: "bad", New: func(Session, Replica) (Policy, error) { return nil, nil },
		Params: []Param{{Name: "m", Type: Int, Default: int64(1), Min: Inclusive(2)}}}
	_, err := newCore(p)
	if err == nil || !strings.Contains(err.Error(), `sdk: plugin bad: parameter "m": default 1: want >= 2`) {
		t.Errorf("newCore = %v", err)
	}
	p.Params = append(p.Params[:0:0], Param{Name: "m", Type: Int, Default: int64(2), Min: Inclusive(2)}, Param{Name: "m", Type: Int, Default: int64(2)})
	if _, err := newCore(p); err == nil || !strings.Contains(err.Error(), `parameter "m" is declared twice`) {
		t.Errorf("newCore with a duplicate = %v", err)
	}
}
