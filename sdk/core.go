package sdk

import (
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/procs"
	"github.com/regretbench/regretbench/internal/protoconv"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

func init() {
	wire.RegisterRunner(func(p any) (wire.Server, error) {
		pl, ok := p.(Plugin)
		if !ok {
			return nil, fmt.Errorf("sdk: %T is not an sdk.Plugin", p)
		}
		return newCore(pl)
	})
}

// core is the policy runner of a plugin, behind every transport: it keeps
// sessions and runs rounds. It implements wire.Server, which the gRPC
// server, the step socket and the host's in-process connection use.
type core struct {
	p Plugin

	mu       sync.Mutex
	next     uint64
	sessions map[uint64]*coreSession
	nopen    atomic.Int64 // len(sessions), read without mu
}

func newCore(p Plugin) (*core, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &core{p: p, sessions: map[uint64]*coreSession{}}, nil
}

// description is what Describe reports, as `plugin describe` prints it.
type description = protoconv.Description

// openRequest is an Open request as the SDK's runner takes it.
type openRequest = protoconv.OpenRequest

func (c *core) describe() *description {
	return &description{
		Name:            c.p.Name,
		Version:         c.p.Version,
		ProtocolVersion: servedVersions[len(servedVersions)-1],
		Params:          c.p.Params,
		Diagnostics:     c.p.Diagnostics,
		StepStream:      true,
		SDK:             SDKVersion,
		Contextual:      c.p.contextual(),
		ContextualOnly:  c.p.contextual() && c.p.New == nil && c.p.NewBatch == nil,
	}
}

// Describe implements wire.Server.
func (c *core) Describe() (*pb.DescribeResponse, error) { return protoconv.ToDescribe(c.describe()) }

// Open implements wire.Server.
func (c *core) Open(req *pb.OpenRequest, version int) (uint64, error) {
	oreq := protoconv.FromOpen(req)
	if oreq.Feedback.Delayed() && version < wire.DelayedFeedbackVersion {
		return 0, fmt.Errorf("%w: delayed feedback (%s) needs protocol version %d, this connection speaks %d",
			errInvalid, oreq.Feedback, wire.DelayedFeedbackVersion, version)
	}
	if ctx := req.GetContext(); ctx != nil {
		if version < wire.ContextualVersion {
			return 0, fmt.Errorf("%w: a contextual session needs protocol version %d, this connection speaks %d",
				errInvalid, wire.ContextualVersion, version)
		}
		if ctx.GetDim() == 0 {
			return 0, fmt.Errorf("%w: a context of dimension 0", errInvalid)
		}
	}
	return c.open(oreq)
}

// Session implements wire.Server.
func (c *core) Session(id uint64) (wire.Session, error) {
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Close implements wire.Server.
func (c *core) Close(id uint64) error { return c.close(id) }

// coreSession is one open session. Steps of one session are sequential.
type coreSession struct {
	mu    sync.Mutex
	id    uint64
	names []string // the declared diagnostics
	spec  Session
	n     int
	reps  []uint64 // global replication indices, for error messages
	round int      // last round answered
	// delivered counts the rewards that have arrived (delayed feedback):
	// n x round - delivered rewards are pending, which bounds arrivals.
	delivered int
	pol       BatchPolicy
	step      BatchStep
	diag      [][]float64
	arrivals  []Arrival // the round's arrivals, reused
	// A contextual session's contexts: the width of one replication's,
	// and the SDK's copies of the last two rounds' (the transports reuse
	// a Step's buffers), swapped each round.
	width int
	ctx   [2][]float64
}

// errInvalid marks errors caused by a bad request rather than the policy.
var errInvalid = wire.ErrInvalid

func (c *core) open(req *openRequest) (uint64, error) {
	if req.Arms < 1 || req.Horizon < 1 || len(req.Replications) == 0 || req.InitPulls < 0 {
		return 0, fmt.Errorf("%w: arms=%d horizon=%d replications=%d init_pulls=%d",
			errInvalid, req.Arms, req.Horizon, len(req.Replications), req.InitPulls)
	}
	if err := feedback.Check(req.Feedback); err != nil {
		return 0, fmt.Errorf("%w: %v", errInvalid, err)
	}
	width, err := c.checkContext(req)
	if err != nil {
		return 0, err
	}
	resolved, err := params.Resolve(c.p.Params, req.Params)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errInvalid, err)
	}
	spec := Session{
		Arms: req.Arms, Horizon: req.Horizon, Family: req.Family,
		NoiseSD: req.NoiseSD, NoiseKnown: req.NoiseKnown,
		InitPulls: req.InitPulls, Seed: req.Seed, Params: Params(resolved),
		Feedback: req.Feedback, Context: req.Context,
	}
	reps := make([]Replica, len(req.Replications))
	for i, idx := range req.Replications {
		reps[i] = Replica{Index: idx, Rand: ReplicaRand(req.Seed, idx)}
	}
	var pol BatchPolicy
	err = protect(func() error {
		var err error
		switch {
		case width > 0 && c.p.NewContextualBatch != nil:
			pol, err = c.p.NewContextualBatch(spec, reps)
		case width > 0:
			pol, err = newContextualReplicaBatch(c.p.NewContextual, spec, reps, len(c.p.Diagnostics), &c.nopen)
		case c.p.NewBatch != nil:
			pol, err = c.p.NewBatch(spec, reps)
		default:
			pol, err = newReplicaBatch(c.p.New, spec, reps, len(c.p.Diagnostics), &c.nopen)
		}
		if err == nil && pol == nil {
			err = errors.New("the factory returned a nil BatchPolicy")
		}
		return err
	})
	if err != nil {
		return 0, err // the caller names the operation ("plugin X: open: ...")
	}
	n := len(reps)
	s := &coreSession{names: c.p.Diagnostics, spec: spec, n: n, reps: req.Replications, pol: pol, width: width}
	s.step.Arms = make([]int32, n)
	if width > 0 {
		s.ctx = [2][]float64{make([]float64, n*width), make([]float64, n*width)}
		s.step.Probs = make([]float64, n)
	}
	s.diag = make([][]float64, len(c.p.Diagnostics))
	for d := range s.diag {
		s.diag[d] = make([]float64, n)
	}
	c.mu.Lock()
	c.next++
	id := c.next
	s.id = id
	c.sessions[id] = s
	c.nopen.Store(int64(len(c.sessions)))
	c.mu.Unlock()
	return id, nil
}

// checkContext checks that the plugin plays the session req asks for,
// contextual or context-free, and returns the width of a replication's
// context (0 in a context-free session).
func (c *core) checkContext(req *openRequest) (int, error) {
	name := wire.Truncate(c.p.Name, MaxNameLen)
	if !req.Context.Contextual() {
		if c.p.New == nil && c.p.NewBatch == nil {
			return 0, fmt.Errorf("%w: plugin %s plays only contextual sessions (it sets NewContextual or NewContextualBatch, not New or NewBatch), and this session has no context",
				errInvalid, name)
		}
		return 0, nil
	}
	if !c.p.contextual() {
		return 0, fmt.Errorf("%w: plugin %s plays only context-free sessions (it sets no NewContextual or NewContextualBatch), and this session is contextual",
			errInvalid, name)
	}
	if req.Feedback.Delayed() {
		return 0, fmt.Errorf("%w: delayed feedback (%s) in a contextual session: contextual sessions take immediate feedback", errInvalid, req.Feedback)
	}
	width := int64(req.Context.Dim)
	if req.Context.PerArm {
		width *= int64(req.Arms)
	}
	// A round's contexts travel in one message: bound them by it.
	if width*int64(len(req.Replications))*8 > wire.MaxMessage {
		return 0, fmt.Errorf("%w: contexts of %d values for %d replications exceed the protocol's %d-byte message limit",
			errInvalid, width, len(req.Replications), wire.MaxMessage)
	}
	return int(width), nil
}

func (c *core) session(id uint64) (*coreSession, error) {
	c.mu.Lock()
	s := c.sessions[id]
	c.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("%w: unknown session %d", errInvalid, id)
	}
	return s, nil
}

// Replications implements wire.Session.
func (s *coreSession) Replications() int { return s.n }

// Delayed implements wire.Session.
func (s *coreSession) Delayed() bool { return s.spec.Feedback.Delayed() }

// ContextWidth implements wire.Session.
func (s *coreSession) ContextWidth() int { return s.spec.Context.Width(s.spec.Arms) }

// Pending implements wire.Session.
func (s *coreSession) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending()
}

// Step implements wire.Session: it plays round st.Round. The returned
// result aliases session buffers and is valid until the next step of the
// session.
func (s *coreSession) Step(in *wire.Step) (wire.StepResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id, round, prevArms, prevRewards, arrivals := s.id, in.Round, in.PrevArms, in.PrevRewards, in.Arrivals
	if round != s.round+1 || round > s.spec.Horizon {
		return wire.StepResult{}, fmt.Errorf("%w: session %d: round %d requested after round %d (horizon %d)",
			errInvalid, id, round, s.round, s.spec.Horizon)
	}
	want := s.n
	if round == 1 {
		want = 0
	}
	if s.spec.Feedback.Delayed() {
		if len(prevArms) != want || len(prevRewards) != 0 {
			return wire.StepResult{}, fmt.Errorf("%w: session %d round %d (feedback %s): got %d arms and %d rewards, want %d arms and no rewards",
				errInvalid, id, round, s.spec.Feedback, len(prevArms), len(prevRewards), want)
		}
		if err := s.checkArrivals(round, arrivals); err != nil {
			return wire.StepResult{}, fmt.Errorf("%w: session %d round %d: %v", errInvalid, id, round, err)
		}
	} else {
		if len(prevArms) != want || len(prevRewards) != want {
			return wire.StepResult{}, fmt.Errorf("%w: session %d round %d: got %d arms and %d rewards, want %d each",
				errInvalid, id, round, len(prevArms), len(prevRewards), want)
		}
		if len(arrivals) > 0 {
			return wire.StepResult{}, fmt.Errorf("%w: session %d round %d: %d arrivals under immediate feedback",
				errInvalid, id, round, len(arrivals))
		}
	}
	for i, a := range prevArms {
		if a < 0 || int(a) >= s.spec.Arms {
			return wire.StepResult{}, fmt.Errorf("%w: session %d round %d: replication %d: arm %d out of range",
				errInvalid, id, round, i, a)
		}
	}
	if len(in.Contexts) != s.n*s.width {
		if s.width == 0 {
			return wire.StepResult{}, fmt.Errorf("%w: session %d round %d: %d context values in a context-free session",
				errInvalid, id, round, len(in.Contexts))
		}
		return wire.StepResult{}, fmt.Errorf("%w: session %d round %d: %d context values, want %d (%d replications of width %d)",
			errInvalid, id, round, len(in.Contexts), s.n*s.width, s.n, s.width)
	}
	st := &s.step
	if s.width > 0 {
		// The SDK's own copies: the transport reuses the Step's buffer,
		// and round t-1's contexts are handed back with its rewards.
		s.ctx[0], s.ctx[1] = s.ctx[1], s.ctx[0]
		copy(s.ctx[0], in.Contexts)
		st.Contexts = s.ctx[0]
		st.PrevContexts = s.ctx[1][:0]
		if round > 1 {
			st.PrevContexts = s.ctx[1]
		}
		clear(st.Probs)
	}
	st.Round = round
	st.PrevArms = prevArms
	st.PrevRewards = prevRewards
	st.Arrivals = nil
	if len(arrivals) > 0 {
		s.arrivals = s.arrivals[:0]
		for _, a := range arrivals {
			s.arrivals = append(s.arrivals, Arrival(a))
		}
		st.Arrivals = s.arrivals
	}
	st.Diagnostics = nil
	wantDiag := in.WantDiag
	if wantDiag && len(s.diag) > 0 {
		st.Diagnostics = s.diag
	}
	if err := protect(func() error { return s.pol.Step(st) }); err != nil {
		// The caller names the round: the host's error already says
		// "step round t", the in-process engine adds it.
		return wire.StepResult{}, err
	}
	// Check a BatchPolicy's answer here, where the error can name the
	// replication in the author's terms (the host checks again, for
	// plugins not built on this SDK).
	if len(st.Arms) != s.n {
		return wire.StepResult{}, fmt.Errorf("the policy returned %d arms for %d replications", len(st.Arms), s.n)
	}
	switch {
	case !wantDiag && len(st.Diagnostics) > 0:
		return wire.StepResult{}, fmt.Errorf("the policy returned %d diagnostics where none were asked for (BatchStep.Diagnostics was nil)", len(st.Diagnostics))
	case wantDiag && len(st.Diagnostics) != len(s.diag):
		return wire.StepResult{}, fmt.Errorf("the policy returned %d diagnostics, the plugin declares %d (Plugin.Diagnostics)", len(st.Diagnostics), len(s.diag))
	}
	for d, row := range st.Diagnostics {
		if len(row) != s.n {
			return wire.StepResult{}, fmt.Errorf("the policy returned %d values of diagnostic %q for %d replications", len(row), s.names[d], s.n)
		}
	}
	forced := round <= s.spec.InitRounds()
	if forced {
		arm := int32((round - 1) % s.spec.Arms)
		for i := range st.Arms {
			st.Arms[i] = arm
		}
	} else {
		for i, a := range st.Arms {
			if a < 0 || int(a) >= s.spec.Arms {
				return wire.StepResult{}, fmt.Errorf("replication %d: the policy returned arm %d, want 0..%d", s.reps[i], a, s.spec.Arms-1)
			}
		}
	}
	res := wire.StepResult{Arms: st.Arms, Diagnostics: st.Diagnostics}
	if s.width > 0 {
		probs, err := s.probs(forced)
		if err != nil {
			return wire.StepResult{}, err
		}
		res.Probs = probs
	}
	s.round = round
	s.delivered += len(arrivals)
	return res, nil
}

// probs checks the probabilities a contextual policy reported for its
// arms, in the author's terms, and returns them: nil when none says. In a
// forced round the policy chose nothing: none is reported.
func (s *coreSession) probs(forced bool) ([]float64, error) {
	st := &s.step
	if len(st.Probs) != s.n {
		return nil, fmt.Errorf("the policy resized BatchStep.Probs to %d for %d replications", len(st.Probs), s.n)
	}
	if forced {
		clear(st.Probs)
		return nil, nil
	}
	said := false
	for i, p := range st.Probs {
		if !validProb(p) {
			return nil, fmt.Errorf("replication %d: the policy reported probability %v for arm %d, want 0 (not said) or a value in (0, 1]",
				s.reps[i], p, st.Arms[i])
		}
		said = said || p != 0
	}
	if !said {
		return nil, nil
	}
	return st.Probs, nil
}

// validProb reports whether p is a probability a policy may report for
// its arm: 0 (not said) or in (0, 1]; never NaN.
func validProb(p float64) bool { return p == 0 || p > 0 && p <= 1 }

// pending is how many rewards of the session have not arrived before the
// next round: every pull of the rounds answered, less those delivered. It
// bounds the arrivals of the next round.
func (s *coreSession) pending() int { return s.n*s.round - s.delivered }

// checkArrivals checks the arrivals of round t: no more than are pending,
// each of a replication of the batch and of an earlier round, an arm in
// range, ordered by index then round, none twice.
func (s *coreSession) checkArrivals(t int, arr []wire.Arrival) error {
	if len(arr) > s.pending() {
		return fmt.Errorf("%d arrivals, but only %d rewards are pending", len(arr), s.pending())
	}
	for j, a := range arr {
		switch {
		case a.Index < 0 || a.Index >= s.n:
			return fmt.Errorf("arrival %d: index %d, want 0..%d", j, a.Index, s.n-1)
		case a.Round < 1 || a.Round >= t:
			return fmt.Errorf("arrival %d: replication %d: pulled in round %d, want 1..%d", j, s.reps[a.Index], a.Round, t-1)
		case a.Arm < 0 || int(a.Arm) >= s.spec.Arms:
			return fmt.Errorf("arrival %d: replication %d: arm %d out of range", j, s.reps[a.Index], a.Arm)
		case j > 0 && (a.Index < arr[j-1].Index || a.Index == arr[j-1].Index && a.Round <= arr[j-1].Round):
			return fmt.Errorf("arrival %d: (index %d, round %d) after (index %d, round %d): arrivals must be ordered by index, then round, without repeats",
				j, a.Index, a.Round, arr[j-1].Index, arr[j-1].Round)
		}
	}
	return nil
}

func (c *core) close(id uint64) error {
	c.mu.Lock()
	s := c.sessions[id]
	if s == nil {
		c.mu.Unlock()
		return fmt.Errorf("%w: unknown session %d", errInvalid, id)
	}
	delete(c.sessions, id)
	c.nopen.Store(int64(len(c.sessions)))
	c.mu.Unlock()
	if cl, ok := s.pol.(Closer); ok {
		return protect(cl.Close)
	}
	return nil
}

// protect runs f and turns a panic into an error carrying the stack, so one
// bad policy call fails its session instead of killing the plugin.
func protect(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("policy panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return f()
}

// replicaBatch adapts per-replication Policies to a BatchPolicy. It splits
// the replications of a round into parallel chunks, one per core, when the
// previous round took at least fanOutWork of CPU and this plugin process
// has fewer sessions open than there are cores. A goroutine started per
// chunk per round costs a thread wake-up (and the Go scheduler's spinning
// for it) of tens of microseconds on a small VM: more than a cheap
// policy's whole round of 500 replications (TS: about 25 us), and, when
// the process has a session per core, more than the split could gain. An
// expensive policy (ReMax, ReMaxGrad) alone in its plugin needs the cores.
// The process does not see other plugins' sessions: bench runs a policy's
// sessions in one process, and its jobs (one per core) in others, which
// may then split their rounds too; the kernel shares the cores.
// Which goroutine plays a replication never changes its result.
type replicaBatch struct {
	spec    Session
	n       int
	pols    []Policy           // context-free policies, or
	cpols   []ContextualPolicy // contextual ones (width values of context each)
	width   int
	diags   []Diagnoser
	cores   int
	maxW    int              // chunks of a split round
	open    *atomic.Int64    // sessions open in the plugin
	work    time.Duration    // CPU time of the last round, estimated
	now     func() time.Time // the clock rounds are timed by; tests set their own
	errs    []error
	scratch [][]float64 // per-chunk diagnostics row
}

// fanOutWork is the work of a round above which the next is split.
const fanOutWork = 100 * time.Microsecond

// minChunk keeps tiny batches on one goroutine: below it the fan-out costs
// more than it saves.
const minChunk = 32

func newReplicaBatch(f Factory, spec Session, reps []Replica, ndiag int, open *atomic.Int64) (*replicaBatch, error) {
	b := &replicaBatch{spec: spec, n: len(reps), pols: make([]Policy, len(reps)), cores: procs.Cores(), open: open, now: time.Now}
	if ndiag > 0 {
		b.diags = make([]Diagnoser, len(reps))
	}
	for i, r := range reps {
		p, err := f(spec, r)
		if err != nil {
			return nil, fmt.Errorf("replication %d: %w", r.Index, err)
		}
		if p == nil {
			return nil, fmt.Errorf("replication %d: factory returned a nil Policy", r.Index)
		}
		b.pols[i] = p
		if err := b.diagnoser(i, p, "Policy"); err != nil {
			return nil, err
		}
	}
	return b.split(ndiag), nil
}

// newContextualReplicaBatch is newReplicaBatch for the contextual
// policies of a contextual session.
func newContextualReplicaBatch(f ContextualFactory, spec Session, reps []Replica, ndiag int, open *atomic.Int64) (*replicaBatch, error) {
	b := &replicaBatch{spec: spec, n: len(reps), cpols: make([]ContextualPolicy, len(reps)), width: spec.Context.Width(spec.Arms),
		cores: procs.Cores(), open: open, now: time.Now}
	if ndiag > 0 {
		b.diags = make([]Diagnoser, len(reps))
	}
	for i, r := range reps {
		p, err := f(spec, r)
		if err != nil {
			return nil, fmt.Errorf("replication %d: %w", r.Index, err)
		}
		if p == nil {
			return nil, fmt.Errorf("replication %d: factory returned a nil ContextualPolicy", r.Index)
		}
		b.cpols[i] = p
		if err := b.diagnoser(i, p, "ContextualPolicy"); err != nil {
			return nil, err
		}
	}
	return b.split(ndiag), nil
}

// diagnoser keeps replication i's policy p as its Diagnoser when the
// plugin declares diagnostics.
func (b *replicaBatch) diagnoser(i int, p any, kind string) error {
	if b.diags == nil {
		return nil
	}
	d, ok := p.(Diagnoser)
	if !ok {
		return fmt.Errorf("plugin declares diagnostics but its %s %T does not implement Diagnoser", kind, p)
	}
	b.diags[i] = d
	return nil
}

// split sizes the chunks a round may be split into.
func (b *replicaBatch) split(ndiag int) *replicaBatch {
	b.maxW = max(1, min(b.cores, (b.n+minChunk-1)/minChunk))
	b.errs = make([]error, b.maxW)
	b.scratch = make([][]float64, b.maxW)
	for j := range b.scratch {
		b.scratch[j] = make([]float64, ndiag)
	}
	return b
}

func (b *replicaBatch) Step(st *BatchStep) error {
	n, w := b.n, b.ways()
	start := b.now()
	defer func() { b.work = b.now().Sub(start) * time.Duration(w) }()
	if w == 1 {
		return b.run(st, 0, 0, n)
	}
	var wg sync.WaitGroup
	for j := 1; j < w; j++ {
		wg.Add(1)
		go func(j int) {
			defer wg.Done()
			b.errs[j] = protect(func() error { return b.run(st, j, j*n/w, (j+1)*n/w) })
		}(j)
	}
	b.errs[0] = b.run(st, 0, 0, n/w)
	wg.Wait()
	return errors.Join(b.errs[:w]...)
}

// ways is how many chunks the next round is split into.
func (b *replicaBatch) ways() int {
	if b.work < fanOutWork || b.open.Load() >= int64(b.cores) {
		return 1
	}
	return b.maxW
}

// run plays replications lo..hi-1 of a round as chunk j.
func (b *replicaBatch) run(st *BatchStep, j, lo, hi int) error {
	if b.cpols != nil {
		return b.runContextual(st, j, lo, hi)
	}
	t := st.Round
	k := b.spec.Arms
	forced := t <= b.spec.InitRounds()
	delayed := b.spec.Feedback.Delayed()
	arr := st.Arrivals
	if delayed {
		// The arrivals are ordered by index: this chunk's start here.
		arr = arr[sort.Search(len(arr), func(j int) bool { return arr[j].Index >= lo }):]
	}
	for i := lo; i < hi; i++ {
		p := b.pols[i]
		if delayed {
			for len(arr) > 0 && arr[0].Index == i {
				p.Observe(arr[0].Round, int(arr[0].Arm), arr[0].Reward)
				arr = arr[1:]
			}
		} else if len(st.PrevArms) > 0 {
			p.Observe(t-1, int(st.PrevArms[i]), st.PrevRewards[i])
		}
		if forced {
			continue
		}
		a := p.Select(t)
		if a < 0 || a >= k {
			return fmt.Errorf("replication %d: Select(%d) returned arm %d, want 0..%d", i, t, a, k-1)
		}
		st.Arms[i] = int32(a)
		if st.Diagnostics != nil {
			b.diagnose(st, j, i)
		}
	}
	return nil
}

// diagnose fills replication i's diagnostics of the round, as chunk j.
func (b *replicaBatch) diagnose(st *BatchStep, j, i int) {
	row := b.scratch[j]
	b.diags[i].Diagnose(row)
	for d, v := range row {
		st.Diagnostics[d][i] = v
	}
}

// runContextual is run for contextual policies (immediate feedback: the
// SDK refuses delayed feedback in a contextual session). Replication i's
// context is its width values of BatchStep.Contexts, and the previous
// round's, handed back with its reward, of PrevContexts.
func (b *replicaBatch) runContextual(st *BatchStep, j, lo, hi int) error {
	t, k, w := st.Round, b.spec.Arms, b.width
	forced := t <= b.spec.InitRounds()
	for i := lo; i < hi; i++ {
		p := b.cpols[i]
		if len(st.PrevArms) > 0 {
			p.Observe(t-1, st.PrevContexts[i*w:(i+1)*w:(i+1)*w], int(st.PrevArms[i]), st.PrevRewards[i])
		}
		if forced {
			continue
		}
		a, prob := p.Select(t, st.Contexts[i*w:(i+1)*w:(i+1)*w])
		if a < 0 || a >= k {
			return fmt.Errorf("replication %d: Select(%d, x) returned arm %d, want 0..%d", i, t, a, k-1)
		}
		if !validProb(prob) {
			return fmt.Errorf("replication %d: Select(%d, x) returned probability %v for arm %d, want 0 (not said) or a value in (0, 1]", i, t, prob, a)
		}
		st.Arms[i] = int32(a)
		st.Probs[i] = prob
		if st.Diagnostics != nil {
			b.diagnose(st, j, i)
		}
	}
	return nil
}
