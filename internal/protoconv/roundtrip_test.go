package protoconv

import (
	"encoding/binary"
	"math"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/regretbench/regretbench/internal/feedback"
	"github.com/regretbench/regretbench/internal/params"
	"github.com/regretbench/regretbench/internal/wire"
	"github.com/regretbench/regretbench/internal/wire/pb"
)

// The round trips of every message this package converts: a Go value the
// protocol can carry comes back equal after To, the wire's encoding and
// From (FuzzDescribeRoundTrip, FuzzOpenRoundTrip); and whatever message a
// peer sends, From then To then From gives back what the first From gave
// (FuzzDescribeMessage, FuzzOpenMessage): the receiver judges the same
// value however often it is passed on. The f.Add calls are the seed
// corpus, run by every `go test`; to fuzz:
//
//	go test -run '^$' -fuzz FuzzOpenRoundTrip -fuzztime 60s ./internal/protoconv/

// gen draws a Go value from a fuzzer's bytes; past their end it draws
// zeros.
type gen struct{ b []byte }

func (g *gen) u64() uint64 {
	var buf [8]byte
	n := copy(buf[:], g.b)
	g.b = g.b[n:]
	return binary.LittleEndian.Uint64(buf[:])
}

func (g *gen) small(n int) int { return int(g.u64() % uint64(n)) }
func (g *gen) bool() bool      { return g.u64()&1 == 1 }

// f64 draws a float, the awkward ones (NaN, infinities, -0) often.
func (g *gen) f64() float64 {
	switch g.small(8) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1 - 2*g.small(2))
	case 2:
		return math.Copysign(0, -1)
	case 3:
		return float64(int64(g.u64()) % 1000)
	}
	return math.Float64frombits(g.u64())
}

// str draws a string of valid UTF-8 (proto3 strings must be), often empty.
func (g *gen) str() string {
	n := g.small(12)
	if n > len(g.b) {
		n = len(g.b)
	}
	s := string(g.b[:n])
	g.b = g.b[n:]
	return strings.ToValidUTF8(s, "\uFFFD")
}

// value draws a parameter value: float64, int64, bool or string.
func (g *gen) value() any {
	switch g.small(4) {
	case 0:
		return g.f64()
	case 1:
		return int64(g.u64())
	case 2:
		return g.bool()
	}
	return g.str()
}

func (g *gen) bound() *params.Bound {
	if g.bool() {
		return nil
	}
	return &params.Bound{Value: g.f64(), Exclusive: g.bool()}
}

var types = []params.Type{params.Float, params.Int, params.Bool, params.String, "complex", ""}

// param draws a declaration, valid or not, as a sender would put it: its
// allowed values in the parameter's type where they convert (ToParam's
// rule).
func (g *gen) param() params.Param {
	p := params.Param{Name: g.str(), Type: types[g.small(len(types))], Default: g.value(), Doc: g.str(), Min: g.bound(), Max: g.bound()}
	for range g.small(4) {
		p.Allowed = append(p.Allowed, g.value())
	}
	return canonical(p)
}

// canonical is p with its allowed values in its type where they convert,
// as ToParam sends them.
func canonical(p params.Param) params.Param {
	if p.Allowed == nil {
		return p
	}
	p.Allowed = append([]any(nil), p.Allowed...)
	for i, a := range p.Allowed {
		if c, err := params.Coerce(p.Type, a); err == nil {
			p.Allowed[i] = c
		}
	}
	return p
}

func (g *gen) description() *Description {
	d := &Description{Name: g.str(), Version: g.str(), ProtocolVersion: int(uint32(g.u64())), StepStream: g.bool(), SDK: g.str(),
		Contextual: g.bool(), ContextualOnly: g.bool()}
	for range g.small(4) {
		d.Params = append(d.Params, g.param())
	}
	for range g.small(4) {
		d.Diagnostics = append(d.Diagnostics, g.str())
	}
	return d
}

var kinds = []feedback.Kind{feedback.Immediate, feedback.Delay, feedback.Geometric, feedback.Batch, "sometimes", EmptyKind}

// feedback draws a mode as a sender holds it: immediate feedback has no
// fields (none travel), delays and batches are within 0..2^62.
func (g *gen) feedback() feedback.Feedback {
	k := kinds[g.small(len(kinds))]
	if k == feedback.Immediate {
		return feedback.Feedback{}
	}
	return feedback.Feedback{Kind: k, Delay: int(g.u64() % (1<<62 + 1)), Mean: g.f64(), Batch: int(g.u64() % (1<<62 + 1))}
}

// context draws a context shape as a sender holds it: the zero value
// (context-free: nothing travels) or a dim within uint32.
func (g *gen) context() wire.ContextShape {
	if g.bool() {
		return wire.ContextShape{}
	}
	return wire.ContextShape{Dim: 1 + int(uint32(g.u64())>>1), PerArm: g.bool()}
}

func (g *gen) open() *OpenRequest {
	r := &OpenRequest{Arms: int(uint32(g.u64())), Horizon: int(g.u64() >> 1), Seed: g.u64(), Family: wire.Family(g.str()),
		NoiseSD: g.f64(), NoiseKnown: g.bool(), InitPulls: int(uint32(g.u64())), Params: map[string]any{}, Feedback: g.feedback(),
		Context: g.context()}
	for range g.small(5) {
		r.Replications = append(r.Replications, g.u64())
	}
	for range g.small(4) {
		r.Params[g.str()] = g.value()
	}
	return r
}

// same is reflect.DeepEqual with a float equal to itself when its bits
// are (NaN included, -0 apart from 0).
func same(a, b any) bool { return sameValue(reflect.ValueOf(a), reflect.ValueOf(b)) }

func sameValue(a, b reflect.Value) bool {
	if a.IsValid() != b.IsValid() {
		return false
	}
	if !a.IsValid() {
		return true
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float())
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Slice:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); !bv.IsValid() || !sameValue(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// trip sends m over the wire: marshalled, then unmarshalled into out.
func trip[M proto.Message](t *testing.T, m, out M) M {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatalf("marshal %v: %v", m, err)
	}
	if err := proto.Unmarshal(b, out); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	return out
}

// seeds is the seed corpus the Go-value round trips share: empty, short
// and long inputs, and ones that draw NaN, infinities and every kind.
var seeds = [][]byte{
	nil,
	{1},
	[]byte("remax\x00\x01\x02\x03\x04\x05\x06\x07ucb1 c float"),
	[]byte(strings.Repeat("\x00\x01\x02\x03\x04\x05\x06\x07\x08", 40)),
	[]byte(strings.Repeat("\xff\xfe\x03\x80geometric\x05", 30)),
	[]byte(strings.Repeat("\x01\x00\x00\x00\x00\x00\x00\x00", 60)),
	[]byte(strings.Repeat("\x02\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00", 30)),
}

// FuzzDescribeRoundTrip: a Description (its parameters, their bounds,
// defaults and allowed values, valid declarations or not) comes back
// equal after ToDescribe, the wire and FromDescribe; a parameter value
// ToValue cannot carry is an error, never a different value.
func FuzzDescribeRoundTrip(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := (&gen{b}).description()
		m, err := ToDescribe(d)
		if err != nil {
			t.Fatalf("ToDescribe(%+v): %v", d, err)
		}
		got := FromDescribe(trip(t, m, &pb.DescribeResponse{}))
		if !same(got, d) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, d)
		}
		for _, p := range d.Params {
			pm, err := ToParam(p)
			if err != nil {
				t.Fatal(err)
			}
			if back := FromParam(trip(t, pm, &pb.Param{})); !same(back, p) {
				t.Fatalf("param round trip:\n got %+v\nwant %+v", back, p)
			}
		}
	})
}

// FuzzOpenRoundTrip: an OpenRequest (sizes, seed, family, noise,
// parameter values, every feedback mode) comes back equal after ToOpen,
// the wire and FromOpen; immediate feedback sends no feedback message.
func FuzzOpenRoundTrip(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := (&gen{b}).open()
		m, err := ToOpen(r)
		if err != nil {
			t.Fatalf("ToOpen(%+v): %v", r, err)
		}
		if (m.Feedback == nil) != !r.Feedback.Delayed() {
			t.Fatalf("feedback %v sent as %v", r.Feedback, m.Feedback)
		}
		if (m.Context == nil) != !r.Context.Contextual() {
			t.Fatalf("context %+v sent as %v", r.Context, m.Context)
		}
		got := FromOpen(trip(t, m, &pb.OpenRequest{}))
		if !same(got, r) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, r)
		}
		if back := FromFeedback(ToFeedback(r.Feedback)); !same(back, r.Feedback) {
			t.Fatalf("feedback round trip: got %+v, want %+v", back, r.Feedback)
		}
		if back := FromContext(ToContext(r.Context)); back != r.Context {
			t.Fatalf("context round trip: got %+v, want %+v", back, r.Context)
		}
	})
}

// hasNil reports whether a declaration holds a value no message carries
// (FromValue's nil for a value without a kind).
func hasNil(ps []params.Param) bool {
	for _, p := range ps {
		if p.Default == nil {
			return true
		}
		for _, a := range p.Allowed {
			if a == nil {
				return true
			}
		}
	}
	return false
}

// FuzzDescribeMessage: whatever Describe answer a plugin sends, what the
// host makes of it (FromDescribe) passes through ToDescribe and back
// unchanged, its allowed values in their parameter's type; only a value
// without a kind fails ToDescribe.
func FuzzDescribeMessage(f *testing.F) {
	for _, s := range seeds {
		m, err := ToDescribe((&gen{s}).description())
		if err != nil {
			f.Fatal(err)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m pb.DescribeResponse
		if proto.Unmarshal(b, &m) != nil {
			return
		}
		d := FromDescribe(&m)
		m2, err := ToDescribe(d)
		if err != nil {
			if !hasNil(d.Params) {
				t.Fatalf("ToDescribe(%+v): %v", d, err)
			}
			return
		}
		want := *d
		want.Params = nil
		for _, p := range d.Params {
			want.Params = append(want.Params, canonical(p))
		}
		if got := FromDescribe(trip(t, m2, &pb.DescribeResponse{})); !same(got, &want) {
			t.Fatalf("passed on:\n got %+v\nwant %+v", got, &want)
		}
	})
}

// FuzzOpenMessage: whatever Open request a host sends, what the plugin
// makes of it (FromOpen) passes through ToOpen and back unchanged; only a
// value without a kind fails ToOpen.
func FuzzOpenMessage(f *testing.F) {
	for _, s := range seeds {
		m, err := ToOpen((&gen{s}).open())
		if err != nil {
			f.Fatal(err)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		var m pb.OpenRequest
		if proto.Unmarshal(b, &m) != nil {
			return
		}
		r := FromOpen(&m)
		m2, err := ToOpen(r)
		if err != nil {
			for _, v := range r.Params {
				if v == nil {
					return
				}
			}
			t.Fatalf("ToOpen(%+v): %v", r, err)
		}
		if got := FromOpen(trip(t, m2, &pb.OpenRequest{})); !same(got, r) {
			t.Fatalf("passed on:\n got %+v\nwant %+v", got, r)
		}
	})
}

// TestValueRoundTrip: each kind of parameter value, and int as int64;
// a value of another type, or nil, is an error.
func TestValueRoundTrip(t *testing.T) {
	for _, c := range []struct{ in, want any }{
		{1.5, 1.5}, {math.Inf(-1), math.Inf(-1)}, {int64(-7), int64(-7)}, {7, int64(7)},
		{true, true}, {"x", "x"}, {"", ""},
	} {
		v, err := ToValue(c.in)
		if err != nil {
			t.Fatalf("ToValue(%#v): %v", c.in, err)
		}
		if got := FromValue(trip(t, v, &pb.Value{})); !same(got, c.want) {
			t.Errorf("ToValue(%#v) comes back as %#v, want %#v", c.in, got, c.want)
		}
	}
	for _, bad := range []any{nil, float32(1), []int{1}, uint(3)} {
		if _, err := ToValue(bad); err == nil {
			t.Errorf("ToValue(%#v) = nil error", bad)
		}
	}
	if got := FromValue(&pb.Value{}); got != nil {
		t.Errorf("FromValue(empty) = %#v, want nil", got)
	}
}
