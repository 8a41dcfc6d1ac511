package simtest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/regretbench/regretbench/sdk"
)

func TestSessions(t *testing.T) {
	g1, b1 := Sessions1[float64]("c")
	g2, b2 := Sessions2[int64, float64]("tau", "xi")
	for _, tc := range []struct {
		name      string
		got, want sdk.Session
	}{
		{"Sessions1 gauss", g1(3, 0.5, 2), Gaussian(3, 0.5, sdk.Params{"c": 2.0})},
		{"Sessions1 bern", b1(2, 0.1), Bernoulli(2, sdk.Params{"c": 0.1})},
		{"Sessions2 gauss", g2(4, 1, 100, 0.6), Gaussian(4, 1, sdk.Params{"tau": int64(100), "xi": 0.6})},
		{"Sessions2 bern", b2(2, 50, 0.5), Bernoulli(2, sdk.Params{"tau": int64(50), "xi": 0.5})},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

func TestReplica(t *testing.T) {
	a, b := Replica(7, 99), Replica(7, 99)
	if a.Index != 7 || a.Rand.Uint64() != b.Rand.Uint64() {
		t.Error("Replica(7, 99) is not index 7 with a reproducible source")
	}
	if Replica(7, 98).Rand.Uint64() == Replica(7, 99).Rand.Uint64() {
		t.Error("streams 98 and 99 draw the same first value")
	}
}

type fixedArm struct{ fixed }

// recorder is a testing.TB that records MustNew's Fatal and Fatalf
// instead of stopping (MustNew calls nothing else that fails).
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatal(...any)          { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestMustNew(t *testing.T) {
	var gotRand bool
	ok := func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) {
		gotRand = r.Rand != nil
		return &fixed{arm: 1}, nil
	}
	refuse := func(sdk.Session, sdk.Replica) (sdk.Policy, error) { return nil, errors.New("no") }
	s := Bernoulli(2, nil)

	if p := MustNew[*fixed](t, ok, s, sdk.Replica{}); p.arm != 1 {
		t.Errorf("MustNew built %+v", p)
	}
	if MustNewFunc[*fixed](ok)(t, s); gotRand {
		t.Error("MustNewFunc gave the policy a Rand; a deterministic policy must get none")
	}
	if Deterministic(ok)(t, s, 5); gotRand {
		t.Error("Deterministic gave the policy a Rand")
	}
	if Seeded(ok, 3)(t, s, 5); !gotRand {
		t.Error("Seeded gave the policy no Rand")
	}
	for name, f := range map[string]func(tb testing.TB){
		"refused":    func(tb testing.TB) { MustNew[*fixed](tb, refuse, s, sdk.Replica{}) },
		"wrong type": func(tb testing.TB) { MustNew[*fixedArm](tb, ok, s, sdk.Replica{}) },
	} {
		r := &recorder{TB: t}
		f(r)
		if !r.failed {
			t.Errorf("%s: MustNew did not fail the test", name)
		}
	}
}
