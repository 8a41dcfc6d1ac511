// Package normal draws standard normal and uniform variates for the
// sampling policies' inner loops, several times faster than
// math/rand/v2.(*Rand).NormFloat64.
//
// A Source is a 128-layer ziggurat (Marsaglia and Tsang, "The Ziggurat
// Method for Generating Random Variables", J. Stat. Softw. 5(8), 2000) on
// wyrand, the 64-bit generator of Wang Yi's wyhash that the Go runtime
// itself uses for its cheap random numbers (runtime.cheaprand): a Weyl
// sequence whose every value is scrambled by one 64x64->128-bit multiply,
// period 2^64, passing BigCrush and PractRand. Like math/rand/v2, and unlike
// the paper's RNOR, the layer and the signed abscissa come from disjoint
// bits of one draw, so they are independent (Doornik, "An improved ziggurat
// method to generate normal random samples", 2005).
//
// Why not rand.Rand: ReMaxGrad draws S*K normals per round (500 at the
// paper's K=10, S=50), and at the paper's settings sampling is most of a
// round. Through rand.Rand with a PCG source a normal costs an interface
// call, PCG-DXSM's three 64-bit multiplies and the ziggurat, about 67
// instructions (valgrind); Fill draws one in about 37, with the generator's
// state in a register and the ziggurat's common path in its loop (2.4x
// faster here). The tests check the distribution against the normal CDF
// and the tail; draws are deterministic given the seed.
package normal

import (
	"math"
	"math/bits"
)

// zigR is the right edge of the base layer, r in Marsaglia and Tsang.
const zigR = 3.442619855899

// Layer tables: a draw of magnitude m (a 31-bit integer) in layer i is
// accepted at once when m < zk[i], and then |x| = m * zw[i]; zf[i] is
// exp(-x_i^2/2) at the layer's right edge x_i.
var (
	zk     [128]uint32
	zw, zf [128]float64
)

func init() {
	const (
		m1 = 1 << 31
		vn = 9.91256303526217e-3 // area of each layer
	)
	dn, tn := zigR, zigR
	q := vn / math.Exp(-0.5*dn*dn)
	zk[0] = uint32(dn / q * m1)
	zk[1] = 0
	zw[0] = q / m1
	zw[127] = dn / m1
	zf[0] = 1
	zf[127] = math.Exp(-0.5 * dn * dn)
	for i := 126; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(vn/dn+math.Exp(-0.5*dn*dn)))
		zk[i+1] = uint32(dn / tn * m1)
		tn = dn
		zf[i] = math.Exp(-0.5 * dn * dn)
		zw[i] = dn / m1
	}
}

// Source is a deterministic generator of normal and uniform variates. Its
// zero value is a valid source with seed 0; it is not safe for concurrent
// use.
type Source struct {
	state uint64
}

// New returns a Source seeded with seed. Sources with different seeds walk
// the same period-2^64 cycle from different points: two of a thousand
// replications' streams of ten million draws each overlap with probability
// below 2^-20.
func New(seed uint64) *Source { return &Source{state: seed} }

// Seed resets the source to the state New(seed) returns.
func (s *Source) Seed(seed uint64) { s.state = seed }

// Uint64 returns a uniformly distributed 64-bit value (wyrand).
func (s *Source) Uint64() uint64 {
	s.state += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(s.state, s.state^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Float64 returns a uniform variate in [0, 1), as rand.Rand.Float64.
func (s *Source) Float64() float64 {
	return float64(s.Uint64()<<11>>11) / (1 << 53)
}

// open returns a uniform variate in (0, 1), safe to take the log of.
func (s *Source) open() float64 {
	return (float64(s.Uint64()>>11) + 0.5) / (1 << 53)
}

// Norm returns a standard normal variate (Fill is faster for many). Bit 0
// of a draw is the sign, bits 1-31 the magnitude m and bits 32-38 the layer
// i; m*zw[i] is accepted at once when m < zk[i], 35 of 36 draws (the top
// layer, which has no rectangle, always takes the wedge test).
func (s *Source) Norm() float64 {
	u := s.Uint64()
	m := uint32(u) >> 1
	if i := u >> 32 & 127; m < zk[i] {
		return math.Float64frombits(math.Float64bits(float64(m)*zw[i]) ^ u<<63)
	}
	return s.normSlow(u)
}

// Fill fills dst with standard normal variates: the same values as len(dst)
// calls of Norm. On amd64 its common path is in assembly (fill_amd64.s):
// 22 instructions a draw where the Go loop, fillFastGo, compiles to 37 (the
// 64-bit constants reloaded every draw, the multiply's fixed registers
// shuffled); a draw outside its layer's rectangle returns to Go.
func (s *Source) Fill(dst []float64) { s.fill(dst, fillFast) }

// fill is Fill with the common path fast.
func (s *Source) fill(dst []float64, fast func(state *uint64, dst []float64) (n int, u uint64)) {
	for len(dst) > 0 {
		n, u := fast(&s.state, dst)
		if n == len(dst) {
			return
		}
		dst[n] = s.normSlow(u)
		dst = dst[n+1:]
	}
}

// fillFastGo draws into dst from the generator state *state while draws
// land inside their layer's rectangle. At the first that does not, it
// returns its index n and the draw u, with *state just past it; otherwise
// it returns len(dst). It is the contract of the assembly fillFast, in Go,
// with the state kept in a register.
func fillFastGo(state *uint64, dst []float64) (n int, u uint64) {
	st := *state
	for k := range dst {
		st += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(st, st^0xe7037ed1a0b428db)
		u := hi ^ lo
		m := uint32(u) >> 1
		if i := u >> 32 & 127; m < zk[i] {
			dst[k] = math.Float64frombits(math.Float64bits(float64(m)*zw[i]) ^ u<<63)
			continue
		}
		*state = st
		return k, u
	}
	*state = st
	return len(dst), 0
}

// normSlow finishes a draw u that fell outside its layer's rectangle, and
// draws again until one is accepted.
func (s *Source) normSlow(u uint64) float64 {
	for {
		m := uint32(u) >> 1
		i := u >> 32 & 127
		x := float64(m) * zw[i]
		if m < zk[i] {
			return math.Float64frombits(math.Float64bits(x) ^ u<<63)
		}
		if v, ok := s.edge(i, x); ok {
			return math.Float64frombits(math.Float64bits(v) ^ u<<63)
		}
		u = s.Uint64()
	}
}

// edge finishes a draw of magnitude x >= 0 that fell outside the rectangle
// of layer i: the tail beyond zigR for the base layer, else the wedge under
// the density. It returns the magnitude, if accepted.
func (s *Source) edge(i uint64, x float64) (float64, bool) {
	if i == 0 {
		for {
			t := -math.Log(s.open()) / zigR
			y := -math.Log(s.open())
			if y+y >= t*t {
				return zigR + t, true
			}
		}
	}
	if zf[i]+s.Float64()*(zf[i-1]-zf[i]) < math.Exp(-0.5*x*x) {
		return x, true
	}
	return 0, false
}
