package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The step socket's binary frames (policy.proto, OpenResponse.step_socket).
// Every frame is a uint32 length followed by that many bytes; integers and
// floats are little-endian.

// Response statuses.
const (
	frameOK      = 0
	frameFailed  = 1 // the policy failed: the message follows
	frameInvalid = 2 // a bad request: the message follows
)

// maxFrame bounds any frame, as maxMessage bounds gRPC messages. Each
// side also bounds a frame by what its session can need (reqFrameLimit,
// respFrameLimit), and checks every count in it against the session
// before it allocates anything by that count: a peer's frame never makes
// the other side allocate more than a well-formed frame would.
const maxFrame = MaxMessage

// maxErrorMsg bounds the message of an error response. The SDK truncates
// its own messages to it (a policy's panic with its stack fits).
const maxErrorMsg = 64 << 10

// reqFrameLimit is the longest request frame of a session of n
// replications whose contexts are width values each (0: a context-free
// session), header included: round, flags, count, an arm and a reward
// per replication, then, in a contextual session, the contexts.
func reqFrameLimit(n, width int) int {
	return int(min(int64(4+13+12*n)+contextBytes(n, width), 4+maxFrame))
}

// contextBytes is the size of the contexts of a request frame of a
// session of n replications with contexts of width values: a count and
// n x width float64s; none in a context-free session (width 0).
func contextBytes(n, width int) int64 {
	if width <= 0 {
		return 0
	}
	return 4 + 8*int64(n)*int64(width)
}

// respFrameLimit is the longest response frame of a session of n
// replications answering with ndiag diagnostics, header included: an OK
// frame with its arms and diagnostics (and, in a contextual session, its
// probabilities), or an error frame.
func respFrameLimit(n, ndiag int, contextual bool) int {
	ok := int64(1+4+4*n+4) + 8*int64(n)*int64(ndiag)
	if contextual {
		ok += 4 + 8*int64(n)
	}
	return int(min(4+max(ok, 1+maxErrorMsg), 4+maxFrame))
}

var le = binary.LittleEndian

// readFrame reads one frame of at most limit bytes (header included) into
// buf, grown as needed, and returns it whole: its payload is frame[4:]. A
// longer frame is refused before anything is allocated for it. It asks
// for as many bytes as buf holds, so that a frame usually costs one
// system call instead of two (header, then payload). The protocol is
// lockstep, so nothing may follow a frame before it is answered: more
// bytes than the frame is an error.
func readFrame(r io.Reader, buf []byte, limit int) (frame []byte, err error) {
	buf = buf[:cap(buf)]
	if len(buf) < minFrameBuf {
		buf = make([]byte, minFrameBuf)
	}
	got, err := io.ReadAtLeast(r, buf, 4)
	if err != nil {
		return buf[:0], err
	}
	n := le.Uint32(buf)
	if int64(n) > int64(limit)-4 {
		return buf[:0], &frameSizeError{n: n, limit: limit - 4}
	}
	end := 4 + int(n)
	if got > end {
		return buf[:0], fmt.Errorf("%d bytes follow a frame of %d: the peer did not wait for the answer", got-end, n)
	}
	if cap(buf) < end {
		buf = append(buf[:got], make([]byte, end-got)...)
	}
	buf = buf[:end]
	if _, err := io.ReadFull(r, buf[got:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf[:0], err
	}
	return buf, nil
}

// frameSizeError is a frame header announcing more than the session can
// need.
type frameSizeError struct {
	n     uint32
	limit int
}

func (e *frameSizeError) Error() string {
	return fmt.Sprintf("frame of %d bytes exceeds the limit of %d for this session", e.n, e.limit)
}

// minFrameBuf is the smallest buffer readFrame reads into: a round of 500
// replications is 6 kB each way.
const minFrameBuf = 8 << 10

// beginFrame starts a frame in buf[:0] with a length to be set by endFrame.
func beginFrame(buf []byte) []byte { return append(buf[:0], 0, 0, 0, 0) }

// endFrame sets the length of the frame in buf.
func endFrame(buf []byte) []byte {
	le.PutUint32(buf, uint32(len(buf)-4))
	return buf
}

// Request flags.
const (
	flagWantDiag = 1 << 0
	flagArrivals = 1 << 1 // protocol 2, delayed feedback: no rewards, arrivals follow
	flagContexts = 1 << 2 // protocol 3, a contextual session: the round's contexts follow
)

// arrivalBytes is the size of one arrival in a request frame: uint32
// index, uint64 round, int32 arm, float64 reward.
const arrivalBytes = 4 + 8 + 4 + 8

// reqFrameLimitDelayed is the longest request frame under delayed feedback
// of a session of n replications with pending rewards not yet arrived:
// round, flags, count, an arm per replication, the arrival count and at
// most every pending reward (and the contexts, as for reqFrameLimit).
func reqFrameLimitDelayed(n, pending, width int) int {
	return int(min(int64(4+13+4*n+4)+int64(arrivalBytes)*int64(pending)+contextBytes(n, width), 4+maxFrame))
}

// stepFrame is a decoded request frame. Its slices alias reused buffers.
type stepFrame struct {
	Step
	delayed bool // flag bit 1: arrivals, no rewards
}

// appendStepRequest appends the request frame of st to buf[:0]: the
// previous round's arms and rewards, or, under delayed feedback, its arms
// and the arrivals (flag bit 1, no rewards); then, when st carries
// contexts (a contextual session, protocol 3), the contexts (flag bit 2).
// Without contexts and arrivals the frame is protocol 1's, byte for
// byte.
func appendStepRequest(buf []byte, st *Step, delayed bool) []byte {
	buf = beginFrame(buf)
	buf = le.AppendUint64(buf, uint64(st.Round))
	var flags byte
	if st.WantDiag {
		flags |= flagWantDiag
	}
	if delayed {
		flags |= flagArrivals
	}
	if len(st.Contexts) > 0 {
		flags |= flagContexts
	}
	buf = append(buf, flags)
	buf = le.AppendUint32(buf, uint32(len(st.PrevArms)))
	for _, a := range st.PrevArms {
		buf = le.AppendUint32(buf, uint32(a))
	}
	if !delayed {
		for _, r := range st.PrevRewards {
			buf = le.AppendUint64(buf, math.Float64bits(r))
		}
	} else {
		buf = le.AppendUint32(buf, uint32(len(st.Arrivals)))
		for _, a := range st.Arrivals {
			buf = le.AppendUint32(buf, uint32(a.Index))
			buf = le.AppendUint64(buf, uint64(a.Round))
			buf = le.AppendUint32(buf, uint32(a.Arm))
			buf = le.AppendUint64(buf, math.Float64bits(a.Reward))
		}
	}
	if len(st.Contexts) > 0 {
		buf = appendFloats(buf, st.Contexts)
	}
	return endFrame(buf)
}

// appendFloats appends uint32 len(v) and v's float64s.
func appendFloats(buf []byte, v []float64) []byte {
	buf = le.AppendUint32(buf, uint32(len(v)))
	for _, x := range v {
		buf = le.AppendUint64(buf, math.Float64bits(x))
	}
	return buf
}

var errShortFrame = errors.New("truncated frame")

// decodeStepRequest decodes a request payload into f, reusing its slices,
// for a session of n replications whose contexts are width values each
// (0: a context-free session): a request carries the previous round of
// every replication, or none (round 1).
//
// Under delayed feedback (flag bit 1) it carries no rewards but up to
// maxArrivals arrivals (the rewards pending in the session): the count is
// checked before anything is allocated by it. In a contextual session
// every request carries the round's contexts (flag bit 2), exactly n x
// width of them, and no other request carries any.
func decodeStepRequest(p []byte, f *stepFrame, n, maxArrivals, width int) error {
	if len(p) < 13 {
		return errShortFrame
	}
	f.Round = int(le.Uint64(p))
	f.WantDiag = p[8]&flagWantDiag != 0
	f.delayed = p[8]&flagArrivals != 0
	hasCtx := p[8]&flagContexts != 0
	switch {
	case hasCtx && width <= 0:
		return errors.New("request frame with contexts (flag bit 2) in a context-free session")
	case !hasCtx && width > 0:
		return errors.New("request frame without contexts (flag bit 2) in a contextual session")
	}
	// A contextual request ends with exactly n x width context values:
	// check their count before anything is decoded or allocated.
	var ctx []byte
	if hasCtx {
		cb := contextBytes(n, width)
		if int64(len(p)) < 13+cb {
			return fmt.Errorf("request frame of %d bytes, too short for the contexts of %d replications of width %d", len(p), n, width)
		}
		ctx, p = p[int64(len(p))-cb:], p[:int64(len(p))-cb]
		if c := le.Uint32(ctx); int64(c) != int64(n)*int64(width) {
			return fmt.Errorf("request frame with %d context values, the session's batch has %d (%d replications of width %d)", c, n*width, n, width)
		}
		ctx = ctx[4:]
	}
	got := int(le.Uint32(p[9:]))
	if got != n && got != 0 {
		return fmt.Errorf("request frame for %d replications in a session of %d", got, n)
	}
	p = p[13:]
	var err error
	if f.delayed {
		err = decodeArrivals(p, f, got, maxArrivals)
	} else {
		err = decodeRewards(p, f, got)
	}
	if err != nil {
		return err
	}
	if !hasCtx {
		f.Contexts = nil
		return nil
	}
	// Never nil: a nil Contexts is a context-free round.
	if f.Contexts = grow(f.Contexts, len(ctx)/8); f.Contexts == nil {
		f.Contexts = []float64{}
	}
	for i := range f.Contexts {
		f.Contexts[i] = math.Float64frombits(le.Uint64(ctx[8*i:]))
	}
	return nil
}

// decodeRewards decodes the rest of a request frame without flag bit 1:
// n arms and n rewards.
func decodeRewards(p []byte, f *stepFrame, n int) error {
	if len(p) != 12*n {
		return fmt.Errorf("request frame of %d bytes for %d replications", len(p)+13, n)
	}
	f.PrevArms = grow(f.PrevArms, n)
	f.PrevRewards = grow(f.PrevRewards, n)
	f.Arrivals = f.Arrivals[:0]
	for i := range f.PrevArms {
		f.PrevArms[i] = int32(le.Uint32(p[4*i:]))
	}
	p = p[4*n:]
	for i := range f.PrevRewards {
		f.PrevRewards[i] = math.Float64frombits(le.Uint64(p[8*i:]))
	}
	return nil
}

// decodeArrivals decodes the rest of a request frame with flag bit 1: n
// arms, then uint32 m and m arrivals, m <= maxArrivals.
func decodeArrivals(p []byte, f *stepFrame, n, maxArrivals int) error {
	if len(p) < 4*n+4 {
		return errShortFrame
	}
	m := le.Uint32(p[4*n:])
	if int64(m) > int64(maxArrivals) {
		return fmt.Errorf("request frame with %d arrivals, but only %d rewards are pending", m, maxArrivals)
	}
	if rest := len(p) - 4*n - 4; int64(rest) != int64(arrivalBytes)*int64(m) {
		return fmt.Errorf("request frame with %d bytes of arrivals for %d arrivals", rest, m)
	}
	f.PrevArms = grow(f.PrevArms, n)
	for i := range f.PrevArms {
		f.PrevArms[i] = int32(le.Uint32(p[4*i:]))
	}
	f.PrevRewards = f.PrevRewards[:0]
	p = p[4*n+4:]
	f.Arrivals = grow(f.Arrivals, int(m))
	for j := range f.Arrivals {
		q := p[arrivalBytes*j:]
		// A round beyond the int range wraps negative: the server refuses it.
		f.Arrivals[j] = Arrival{
			Index:  int(le.Uint32(q)),
			Round:  int(le.Uint64(q[4:])),
			Arm:    int32(le.Uint32(q[12:])),
			Reward: math.Float64frombits(le.Uint64(q[16:])),
		}
	}
	return nil
}

// appendStepResponse appends an OK response frame to buf[:0]; in a
// contextual session it ends with the probabilities (none or one per
// replication).
func appendStepResponse(buf []byte, res StepResult, contextual bool) []byte {
	buf = beginFrame(buf)
	buf = append(buf, frameOK)
	buf = le.AppendUint32(buf, uint32(len(res.Arms)))
	for _, a := range res.Arms {
		buf = le.AppendUint32(buf, uint32(a))
	}
	buf = le.AppendUint32(buf, uint32(len(res.Diagnostics)))
	for _, d := range res.Diagnostics {
		for _, v := range d {
			buf = le.AppendUint64(buf, math.Float64bits(v))
		}
	}
	if contextual {
		buf = appendFloats(buf, res.Probs)
	}
	return endFrame(buf)
}

// appendErrorResponse appends an error response frame to buf[:0], its
// message truncated to maxErrorMsg bytes.
func appendErrorResponse(buf []byte, status byte, msg string) []byte {
	if len(msg) > maxErrorMsg {
		const cut = " [truncated]"
		msg = msg[:maxErrorMsg-len(cut)] + cut
	}
	buf = beginFrame(buf)
	buf = append(buf, status)
	buf = append(buf, msg...)
	return endFrame(buf)
}

// stepReply is a decoded response frame. Its slices alias reused buffers.
type stepReply struct {
	status byte
	msg    string
	arms   []int32
	diag   [][]float64
	probs  []float64 // a contextual session's; nil when none were sent
}

// decodeStepResponse decodes a response payload into r, reusing its
// slices, for a session of n replications expecting ndiag diagnostics
// (0 when none were asked for); in a contextual session the frame ends
// with none or n probabilities. Every count is checked against the
// session's before anything is allocated by it.
func decodeStepResponse(p []byte, r *stepReply, n, ndiag int, contextual bool) error {
	if len(p) < 1 {
		return errShortFrame
	}
	r.status, p = p[0], p[1:]
	if r.status != frameOK {
		if r.status != frameFailed && r.status != frameInvalid {
			return fmt.Errorf("unknown response status %d", r.status)
		}
		r.msg = string(p)
		return nil
	}
	if len(p) < 4 {
		return errShortFrame
	}
	if err := CheckCounts(int(le.Uint32(p)), n, ndiag, ndiag); err != nil {
		return err
	}
	p = p[4:]
	if len(p) < 4*n+4 {
		return errShortFrame
	}
	r.arms = grow(r.arms, n)
	for i := range r.arms {
		r.arms[i] = int32(le.Uint32(p[4*i:]))
	}
	p = p[4*n:]
	d := int(le.Uint32(p))
	if err := CheckCounts(n, n, d, ndiag); err != nil {
		return err
	}
	p = p[4:]
	if len(p) < 8*n*d || !contextual && len(p) != 8*n*d {
		return fmt.Errorf("response frame with %d diagnostics bytes for %d diagnostics of %d replications", len(p), d, n)
	}
	for len(r.diag) < d {
		r.diag = append(r.diag, nil)
	}
	r.diag = r.diag[:d]
	for j := range r.diag {
		r.diag[j] = grow(r.diag[j], n)
		for i := range r.diag[j] {
			r.diag[j][i] = math.Float64frombits(le.Uint64(p[8*i:]))
		}
		p = p[8*n:]
	}
	r.probs = r.probs[:0]
	if !contextual {
		return nil
	}
	if len(p) < 4 {
		return errShortFrame
	}
	np := le.Uint32(p)
	if np != 0 && int64(np) != int64(n) {
		return fmt.Errorf("returned %d probabilities for %d replications (want %d or none)", np, n, n)
	}
	p = p[4:]
	if int64(len(p)) != 8*int64(np) {
		return fmt.Errorf("response frame with %d bytes of probabilities for %d", len(p), np)
	}
	r.probs = grow(r.probs, int(np))
	for i := range r.probs {
		r.probs[i] = math.Float64frombits(le.Uint64(p[8*i:]))
	}
	return nil
}

// CheckCounts checks the numbers of arms and diagnostics in a plugin's
// answer against what its session expects: an arm per replication, and
// the declared diagnostics when they were asked for, none otherwise. Both
// the step socket's decoder and the host's gRPC client use it.
func CheckCounts(arms, n, diags, ndiag int) error {
	switch {
	case arms != n:
		return fmt.Errorf("returned %d arms for %d replications", arms, n)
	case diags == ndiag:
		return nil
	case ndiag == 0:
		return fmt.Errorf("returned %d diagnostics where none were asked for", diags)
	}
	return fmt.Errorf("returned %d diagnostics, it declared %d", diags, ndiag)
}

// grow returns s resized to n elements, reallocated only when too small.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
