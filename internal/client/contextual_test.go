package client

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
	"github.com/regretbench/regretbench/sdk"
)

// The contextual sessions of protocol 3 end to end, between this client
// and the Go SDK, over every transport: the contexts a Step carries reach
// the policy intact, the probabilities it reports come back, and Observe
// gets each round's own context back with its reward.

// argmax plays the arm whose score in the context is highest (x[a], or
// per arm the first feature of arm a's), and reports that score, a value
// in (0, 1) the test draws, as the arm's probability: so the arm and the
// probability that come back say what context the policy saw.
func argmax(x []float64, s sdk.Session) (int, float64) {
	best, score := 0, math.Inf(-1)
	for a := range s.Arms {
		v := x[a]
		if s.Context.PerArm {
			v = x[a*s.Context.Dim]
		}
		if v > score {
			best, score = a, v
		}
	}
	return best, score
}

// observed is one Observe call as a policy saw it.
type observed struct {
	round  int
	x      []float64
	arm    int
	reward float64
}

// ctxLog collects, per replication index, what the policies observed.
type ctxLog struct {
	mu  sync.Mutex
	obs map[uint64][]observed
	sel map[uint64][]int // the rounds Select was called for
}

func (l *ctxLog) observe(r uint64, o observed) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.obs[r] = append(l.obs[r], o)
}

func (l *ctxLog) selected(r uint64, t int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sel[r] = append(l.sel[r], t)
}

// argmaxPolicy is argmax per replication.
type argmaxPolicy struct {
	s   sdk.Session
	r   uint64
	log *ctxLog
}

func (p *argmaxPolicy) Select(t int, x []float64) (int, float64) {
	p.log.selected(p.r, t)
	return argmax(x, p.s)
}

func (p *argmaxPolicy) Observe(t int, x []float64, arm int, reward float64) {
	p.log.observe(p.r, observed{t, slices.Clone(x), arm, reward})
}

// argmaxPlugins returns argmax as per-replication contextual policies and
// as a contextual batch policy, each also playing context-free sessions
// (arm t mod K) unless only is set, logging into log.
func argmaxPlugins(log *ctxLog, only bool) map[string]sdk.Plugin {
	per := sdk.Plugin{Name: "argmax", Version: "0.0.1",
		NewContextual: func(s sdk.Session, r sdk.Replica) (sdk.ContextualPolicy, error) {
			return &argmaxPolicy{s: s, r: r.Index, log: log}, nil
		}}
	batch := sdk.Plugin{Name: "argmaxb", Version: "0.0.1",
		NewContextualBatch: func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
			w := s.Context.Width(s.Arms)
			return stepFunc(func(st *sdk.BatchStep) error {
				if len(st.Contexts) != len(reps)*w || len(st.Probs) != len(reps) {
					return fmt.Errorf("round %d: %d contexts and %d probabilities for %d replications of width %d", st.Round, len(st.Contexts), len(st.Probs), len(reps), w)
				}
				if st.Round == 1 && len(st.PrevContexts) != 0 || st.Round > 1 && len(st.PrevContexts) != len(reps)*w {
					return fmt.Errorf("round %d: %d previous contexts", st.Round, len(st.PrevContexts))
				}
				for i, r := range reps {
					if st.Probs[i] != 0 {
						return fmt.Errorf("round %d: Probs not zeroed", st.Round)
					}
					if len(st.PrevArms) > 0 {
						log.observe(r.Index, observed{st.Round - 1, slices.Clone(st.PrevContexts[i*w : (i+1)*w]), int(st.PrevArms[i]), st.PrevRewards[i]})
					}
					log.selected(r.Index, st.Round)
					a, p := argmax(st.Contexts[i*w:(i+1)*w], s)
					st.Arms[i], st.Probs[i] = int32(a), p
				}
				return nil
			}), nil
		}}
	if !only {
		plain := func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return &constPolicy{k: s.Arms}, nil }
		per.New = plain
		batch.New = plain
	}
	return map[string]sdk.Plugin{"per-replication": per, "batch": batch}
}

// transports connects to p over each transport: in process, the step
// socket, the Steps stream and unary Step.
var ctxTransports = map[string]*StartOptions{"local": nil, "socket": {}, "stream": {NoSocket: true}, "unary": {NoStream: true}}

func connect(t *testing.T, ctx context.Context, p sdk.Plugin, opts *StartOptions) Conn {
	t.Helper()
	if opts == nil {
		l, err := NewLocal(p)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	rc, err := ServeInProcess(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Attach(rc, *opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Describe(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// ctxValue is the test's context value j of replication r in round t: in
// (0, 1), distinct.
func ctxValue(r uint64, t, j int) float64 {
	return float64((int(r)*7919+t*104729+j*15485863)%999983+1) / 1000000
}

// TestContextualOverEveryTransport: each round's contexts reach the
// policy intact (the arm and probability it answers are functions of
// them), the probabilities come back, Observe gets each round's context,
// arm and reward (forced rounds included), and Select is not called in
// forced rounds.
func TestContextualOverEveryTransport(t *testing.T) {
	const arms, horizon = 3, 12
	reps := []uint64{40, 7, 1000001}
	for _, shape := range []sdk.ContextShape{{Dim: 5}, {Dim: 2, PerArm: true}} {
		log := &ctxLog{}
		for pname, p := range argmaxPlugins(log, false) {
			for tname, opts := range ctxTransports {
				t.Run(fmt.Sprintf("%s/%s/dim=%d,per_arm=%v", pname, tname, shape.Dim, shape.PerArm), func(t *testing.T) {
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					log.obs, log.sel = map[uint64][]observed{}, map[uint64][]int{}
					c := connect(t, ctx, p, opts)
					defer c.Close()
					sess, err := c.Open(ctx, &OpenRequest{Arms: arms, Horizon: horizon, Replications: reps, Family: sdk.Gaussian, NoiseSD: 1, InitPulls: 1, Context: shape})
					if err != nil {
						t.Fatal(err)
					}
					if cs, ok := sess.(*clientSession); ok && (cs.sock != nil) != (tname == "socket") {
						t.Fatalf("step socket in use: %v", cs.sock != nil)
					}
					w := shape.Width(arms)
					var prevA []int32
					var prevR []float64
					contexts := make([]float64, len(reps)*w) // reused, as the engine reuses its buffers
					history := map[int][]float64{}
					played := map[int][]int32{}
					for round := 1; round <= horizon; round++ {
						for i, r := range reps {
							for j := range w {
								contexts[i*w+j] = ctxValue(r, round, j)
							}
						}
						history[round] = slices.Clone(contexts)
						res, err := sess.Step(ctx, &Step{Round: round, PrevArms: prevA, PrevRewards: prevR, Contexts: contexts})
						if err != nil {
							t.Fatalf("round %d: %v", round, err)
						}
						forced := round <= arms
						if forced && res.Probs != nil {
							t.Errorf("round %d (forced): probabilities %v", round, res.Probs)
						}
						prevA, prevR = slices.Clone(res.Arms), make([]float64, len(reps))
						played[round] = prevA
						for i := range reps {
							x := contexts[i*w : (i+1)*w]
							wantArm, wantP := argmax(x, sdk.Session{Arms: arms, Context: shape})
							if forced {
								wantArm, wantP = (round-1)%arms, 0
							}
							if res.Arms[i] != int32(wantArm) {
								t.Errorf("round %d replication %d: arm %d, want %d", round, reps[i], res.Arms[i], wantArm)
							}
							if !forced && (len(res.Probs) != len(reps) || res.Probs[i] != wantP) {
								t.Errorf("round %d replication %d: probabilities %v, want %v at %d", round, reps[i], res.Probs, wantP, i)
							}
							prevR[i] = float64(round) + float64(i)/10
						}
					}
					if err := sess.Close(ctx); err != nil {
						t.Fatal(err)
					}
					for i, r := range reps {
						obs := log.obs[r]
						if len(obs) != horizon-1 {
							t.Fatalf("replication %d: %d Observe calls, want %d", r, len(obs), horizon-1)
						}
						for k, o := range obs {
							round := k + 1
							want := observed{round, history[round][i*w : (i+1)*w], int(played[round][i]), float64(round) + float64(i)/10}
							if o.round != want.round || !slices.Equal(o.x, want.x) || o.arm != want.arm || o.reward != want.reward {
								t.Errorf("replication %d: Observe(%d, %v, %d, %v), want Observe(%d, %v, %d, %v)",
									r, o.round, o.x, o.arm, o.reward, want.round, want.x, want.arm, want.reward)
							}
						}
						if pname == "per-replication" && (len(log.sel[r]) != horizon-arms || log.sel[r][0] != arms+1) {
							t.Errorf("replication %d: Select called for rounds %v, want %d..%d", r, log.sel[r], arms+1, horizon)
						}
					}
				})
			}
		}
	}
}

// TestContextualRefusals: a session the plugin does not play is refused
// at Open, over every transport, saying why: a contextual one on a plugin
// without contextual factories, a context-free one on a plugin with only
// those; and a Step whose contexts do not fit the session.
func TestContextualRefusals(t *testing.T) {
	plain := sdk.Plugin{Name: "plain", Version: "0.0.1", New: func(s sdk.Session, r sdk.Replica) (sdk.Policy, error) { return &constPolicy{k: s.Arms}, nil }}
	only := argmaxPlugins(&ctxLog{obs: map[uint64][]observed{}, sel: map[uint64][]int{}}, true)["per-replication"]
	both := argmaxPlugins(&ctxLog{obs: map[uint64][]observed{}, sel: map[uint64][]int{}}, false)["batch"]
	base := OpenRequest{Arms: 3, Horizon: 10, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1}
	withCtx := base
	withCtx.Context = sdk.ContextShape{Dim: 4}
	for tname, opts := range ctxTransports {
		t.Run(tname, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for _, c := range []struct {
				name string
				p    sdk.Plugin
				req  OpenRequest
				want string
			}{
				{"contextual session, context-free plugin", plain, withCtx, "does not play contextual sessions"},
				{"context-free session, contextual-only plugin", only, base, "plays only contextual sessions"},
			} {
				conn := connect(t, ctx, c.p, opts)
				_, err := conn.Open(ctx, &c.req)
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
				}
				if opts != nil && (err == nil || !strings.Contains(err.Error(), "plugin reattach:")) {
					t.Errorf("%s: the error does not name the plugin: %v", c.name, err)
				}
			}
			conn := connect(t, ctx, both, opts)
			for _, req := range []OpenRequest{base, withCtx} {
				sess, err := conn.Open(ctx, &req)
				if err != nil {
					t.Fatalf("context %+v: %v", req.Context, err)
				}
				bad := make([]float64, 2*req.Context.Dim+1)
				if _, err := sess.Step(ctx, &Step{Round: 1, Contexts: bad}); err == nil || !strings.Contains(err.Error(), "context values") {
					t.Errorf("context %+v: %d context values: %v", req.Context, len(bad), err)
				}
				sess.Close(ctx)
			}
		})
	}
}

// TestContextualProtocol2Plugin: a plugin speaking protocol 2 (built
// before protocol 3) plays context-free sessions as before, and is
// refused a contextual one, even if it claimed contextual.
func TestContextualProtocol2Plugin(t *testing.T) {
	both := argmaxPlugins(&ctxLog{obs: map[uint64][]observed{}, sel: map[uint64][]int{}}, false)["per-replication"]
	for _, opts := range []StartOptions{{}, {NoSocket: true}, {NoStream: true}} {
		srv, err := wire.InProcess(both)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := wire.NewPolicyServer(srv, wire.DelayedFeedbackVersion)
		if err != nil {
			t.Fatal(err)
		}
		c := serveRogueVersion(t, ps, wire.DelayedFeedbackVersion, opts)
		ctx := context.Background()
		d, err := c.Describe(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if d.ProtocolVersion != 2 || c.Protocol() != 2 {
			t.Fatalf("protocol %d, negotiated %d, want 2", d.ProtocolVersion, c.Protocol())
		}
		req := &OpenRequest{Arms: 3, Horizon: 4, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1}
		sess, err := c.Open(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for round := 1; round <= 4; round++ {
			st := &Step{Round: round}
			if round > 1 {
				st.PrevArms, st.PrevRewards = []int32{0, 0}, []float64{1, 1}
			}
			if _, err := sess.Step(ctx, st); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		sess.Close(ctx)
		req.Context = sdk.ContextShape{Dim: 2}
		if _, err := c.Open(ctx, req); err == nil || !strings.Contains(err.Error(), "needs protocol version 3, and the plugin speaks 2") {
			t.Errorf("%+v: contextual session on a protocol 2 plugin: %v", opts, err)
		}
	}
}

// probTamper answers unary Steps with the SDK's answer, its
// probabilities replaced.
type probTamper struct {
	pb.PolicyServer
	probs []float64
}

func (p *probTamper) Step(ctx context.Context, req *pb.StepRequest) (*pb.StepResponse, error) {
	resp, err := p.PolicyServer.Step(ctx, req)
	if err == nil {
		resp.Probs = p.probs
	}
	return resp, err
}

// TestContextualHostileProbs: probabilities that are not one per
// replication, or not 0 or in (0, 1], are the plugin's error for the
// round, naming the plugin.
func TestContextualHostileProbs(t *testing.T) {
	p := argmaxPlugins(&ctxLog{obs: map[uint64][]observed{}, sel: map[uint64][]int{}}, true)["batch"]
	for _, c := range []struct {
		probs []float64
		want  string
	}{
		{[]float64{0.5}, "returned 1 probabilities for 2 replications"},
		{[]float64{0.5, 1.5}, "returned probability 1.5 for replication 1"},
		{[]float64{math.NaN(), 1}, "returned probability NaN"},
		{[]float64{-0.25, 1}, "returned probability -0.25"},
		{[]float64{math.Inf(1), 1}, "returned probability +Inf"},
	} {
		cl := serveRogue(t, &probTamper{PolicyServer: sdkServer(t, p), probs: c.probs}, StartOptions{NoStream: true})
		ctx := context.Background()
		sess, err := cl.Open(ctx, &OpenRequest{Arms: 2, Horizon: 3, Replications: []uint64{0, 1}, Family: sdk.Gaussian, NoiseSD: 1, Context: sdk.ContextShape{Dim: 2}})
		if err != nil {
			t.Fatal(err)
		}
		_, err = sess.Step(ctx, &Step{Round: 1, Contexts: []float64{0.1, 0.2, 0.3, 0.4}})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "step round 1") {
			t.Errorf("probabilities %v: error %v, want one naming round 1 and containing %q", c.probs, err, c.want)
		}
	}
}

// TestContextualStepAllocations: a round of a contextual session
// allocates nothing once the session runs, in process and on the step
// socket (both ends in this process), contexts and probabilities
// included.
func TestContextualStepAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own around system calls")
	}
	const n, dim = 100, 16
	p := argmaxPlugins(nil, true)["batch"]
	p.NewContextualBatch = func(s sdk.Session, reps []sdk.Replica) (sdk.BatchPolicy, error) {
		w := s.Context.Width(s.Arms)
		return stepFunc(func(st *sdk.BatchStep) error {
			for i := range reps {
				a, p := argmax(st.Contexts[i*w:(i+1)*w], s)
				st.Arms[i], st.Probs[i] = int32(a), p
			}
			return nil
		}), nil
	}
	for _, tname := range []string{"local", "socket"} {
		t.Run(tname, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := connect(t, ctx, p, ctxTransports[tname])
			reps := make([]uint64, n)
			for i := range reps {
				reps[i] = uint64(i)
			}
			s, err := c.Open(ctx, &OpenRequest{Arms: 10, Horizon: 1 << 30, Replications: reps, Family: sdk.Gaussian, NoiseSD: 1, Context: sdk.ContextShape{Dim: dim}})
			if err != nil {
				t.Fatal(err)
			}
			contexts := make([]float64, n*dim)
			for i := range contexts {
				contexts[i] = float64(i%13) / 13
			}
			if _, err := s.Step(ctx, &Step{Round: 1, Contexts: contexts}); err != nil {
				t.Fatal(err)
			}
			arms := make([]int32, n)
			st := &Step{PrevArms: arms, PrevRewards: make([]float64, n), Contexts: contexts}
			round := 1
			allocs := testing.AllocsPerRun(200, func() {
				round++
				st.Round = round
				res, err := s.Step(ctx, st)
				if err != nil || len(res.Probs) != n {
					t.Fatalf("round %d: %d probabilities, %v", round, len(res.Probs), err)
				}
				copy(arms, res.Arms)
			})
			if allocs > 0 {
				t.Errorf("%v allocations per contextual round, want 0", allocs)
			}
		})
	}
}

// TestCheckOpen: which sessions the client opens on what a plugin
// declared, before any RPC.
func TestCheckOpen(t *testing.T) {
	ctxReq := func(dim, arms, n int, perArm bool) *OpenRequest {
		return &OpenRequest{Arms: arms, Replications: make([]uint64, n), Context: sdk.ContextShape{Dim: dim, PerArm: perArm}}
	}
	v3 := declared{protocol: 3, contextual: true}
	for _, c := range []struct {
		name string
		decl declared
		req  *OpenRequest
		want string // "" accepted
	}{
		{"context-free on protocol 1", declared{protocol: 1}, ctxReq(0, 3, 2, false), ""},
		{"contextual on protocol 3", v3, ctxReq(16, 3, 2, false), ""},
		{"contextual on protocol 2", declared{protocol: 2, contextual: true}, ctxReq(16, 3, 2, false), "needs protocol version 3"},
		{"contextual on a context-free plugin", declared{protocol: 3}, ctxReq(16, 3, 2, false), "does not play contextual sessions"},
		{"context-free on a contextual-only plugin", declared{protocol: 3, contextual: true, contextualOnly: true}, ctxReq(0, 3, 2, false), "plays only contextual sessions"},
		{"large but within the limit", v3, ctxReq(784, 1000, 1000, false), ""},
		{"per arm beyond the limit", v3, ctxReq(784, 1000, 1000, true), "message limit"},
	} {
		err := c.decl.checkOpen(c.req)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
