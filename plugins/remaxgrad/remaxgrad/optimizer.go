package remaxgrad

import (
	"fmt"
	"math"

	"github.com/regretbench/regretbench/plugins/internal/normal"
)

// Adam's constants (Algorithm 2 uses the standard values).
const (
	adamBeta1 = 0.9
	adamBeta2 = 0.999
	adamEps   = 1e-8
)

const (
	// maxSmallK is the largest K of the fast path, whose arm indices are
	// bytes indexing [256]float64 arrays, so that the gradient loop's
	// gathers and scatters need no bounds checks.
	maxSmallK = 256

	// maxDedupeK is the largest K for which samples with the same ordering
	// of the arms are merged. Jhat and its gradient depend on a sample only
	// through its ordering and, linearly, its gaps theta_(r) - theta_(r+1),
	// so samples sharing an ordering can be added up once per round instead
	// of once per Adam step. With K <= 4 most of S = 50 samples share one of
	// at most K! orderings; for larger K repeats are rare.
	maxDedupeK = 4

	// maxPairK is the largest K for which M = 2 uses the sampled pairwise
	// matrix: Jhat_2(pi) = pi^T Ghat pi exactly, with Ghat_ij the sample
	// mean of max(theta_i, theta_j) (and Ghat_ii that of theta_i), so the
	// gradient is 2 Ghat pi. Building Ghat costs S K(K-1)/2 and needs no
	// sorting; a step then costs K^2 instead of S K. For K up to 16 that is
	// cheaper at the paper's S = 50 and L = 20 (measured: a K=10 round went
	// from about 27 to about 15.5 us); beyond it the sorted form wins.
	maxPairK = 16

	// minBucketK is the smallest K whose samples are sorted by a bucket pass
	// before the insertion sort; for smaller K insertion sort alone is faster.
	minBucketK = 24
)

// Optimizer maximises the sample-average ReMax objective Jhat_M over the
// simplex by Adam on softmax logits: the inner loop of Algorithm 2. Its
// logits persist across rounds (the warm start); each Run resets Adam's
// moments. All buffers are allocated by NewOptimizer: loading samples and
// Run do not allocate.
type Optimizer struct {
	k, m, cap int
	steps     int
	lr, tol   float64

	robust bool      // the robust variant: Run is runRobust
	tvTol  float64   // its stop rule's total-variation tolerance
	floor  float64   // its logit floor F: logits start a round >= -F
	prev   []float64 // its pi before the last step (robust only)

	z, pi, g []float64 // logits, softmax(z), gradient buffer
	mom, vel []float64 // Adam's first and second moments

	// The loaded samples, merged by ordering. Ordering u lists the arms in
	// decreasing order of theta at positions u*k..u*k+k-1 of ord8 (K <= 256)
	// or ord32; diff holds, at the same positions, theta_(r) - theta_(r+1)
	// summed over the samples with that ordering (0 at the last rank).
	nu, n  int // distinct orderings, samples loaded
	ord8   []uint8
	ord32  []int32
	diff   []float64
	minSum float64 // sum over the samples of theta_(K), for Objective

	pa, ga *[maxSmallK]float64 // fast path: pi and gradient accumulator

	// Deduplication (K <= maxDedupeK): ordering code -> ordering index + 1,
	// valid when its stamp equals gen.
	codeIdx   []int32
	codeStamp []uint32
	gen       uint32

	norm   []float64 // a round's standard normals, sample by sample
	mr, sr []float64 // means and sds in rank order (K <= 256)
	rank8  []uint8   // rank as bytes (K <= 256)
	keys   []float64 // one sample's theta in rank order
	rank   []int32   // arms by decreasing posterior mean: the order samples are drawn in
	bucket []uint8   // bucket sort scratch (K <= 256)
	count  []int32
	tkeys  []float64
	tord   []uint8

	gap      float64 // KKT gap at the current logits, when gapKnown
	gapKnown bool

	// pair, when non-nil (M = 2, K <= maxPairK), holds the sums over the
	// loaded samples of max(theta_i, theta_j), row-major, and replaces the
	// orderings above; cols holds the samples arm-major, theta_si at
	// cols[i*Samples+s], to build it from.
	pair, cols []float64
	dist       []float64 // buildPair's scratch: one column's distances
}

// NewOptimizer returns an optimizer for k arms with settings c (c.Samples
// is the number of samples a round holds) and logits z = 0. c.M and
// c.Samples may exceed the parameters' bounds MaxM and MaxSamples, which
// bound a plugin's time and memory.
func NewOptimizer(k int, c Config) *Optimizer {
	if k < 1 {
		panic(fmt.Sprintf("remaxgrad: NewOptimizer: %d arms", k))
	}
	if err := c.validateLower(); err != nil {
		panic("remaxgrad: NewOptimizer: " + err.Error())
	}
	o := &Optimizer{
		k: k, m: c.M, cap: c.Samples, steps: c.Steps, lr: c.LR, tol: c.Tol,
		robust: c.Variant == VariantRobust, tvTol: c.TVTol, floor: c.LogitFloor,
		z: make([]float64, k), g: make([]float64, k),
		mom: make([]float64, k), vel: make([]float64, k),
		diff: make([]float64, k*c.Samples),
		keys: make([]float64, k), rank: make([]int32, k),
		norm: make([]float64, k*c.Samples),
	}
	if k <= maxSmallK {
		o.pa, o.ga = new([maxSmallK]float64), new([maxSmallK]float64)
		o.pi = o.pa[:k:k]
		o.ord8 = make([]uint8, k*c.Samples)
		o.mr, o.sr, o.rank8 = make([]float64, k), make([]float64, k), make([]uint8, k)
		if k >= minBucketK {
			o.bucket, o.count = make([]uint8, k), make([]int32, k+1)
			o.tkeys, o.tord = make([]float64, k), make([]uint8, k)
		}
	} else {
		o.pi = make([]float64, k)
		o.ord32 = make([]int32, k*c.Samples)
	}
	if k <= maxDedupeK {
		size := 1
		for range k {
			size *= k
		}
		o.codeIdx, o.codeStamp = make([]int32, size), make([]uint32, size)
	}
	for i := range o.rank {
		o.rank[i] = int32(i)
	}
	if o.robust {
		o.prev = make([]float64, k)
	}
	if c.M == 2 && k <= maxPairK {
		o.pair, o.cols, o.dist = make([]float64, k*k), make([]float64, k*c.Samples), make([]float64, k)
	}
	Softmax(o.pi, o.z)
	return o
}

// buildPair computes the pairwise sums of the n samples in the arm-major
// buffer: pair[i][j] = sum_s max(theta_si, theta_sj), pair[i][i] =
// sum_s theta_si. It uses max(a,b) = (a + b + |a-b|)/2, so each pair costs
// one subtraction, one absolute value and one addition per sample, in a
// loop over contiguous columns with four independent sums. Against Go's
// NaN-aware max per sample pair, valgrind counts a third fewer instructions
// and a quarter of the mispredicted branches for a K=10 round's sampling.
func (o *Optimizer) buildPair(n int) {
	k := o.k
	cols := o.cols
	col := func(a int) []float64 { return cols[a*o.cap : a*o.cap+n] }
	for i := 0; i < k; i++ {
		var sum float64
		for _, x := range col(i) {
			sum += x
		}
		o.pair[i*k+i] = sum
	}
	dist := o.dist[:k]
	for i := 0; i+1 < k; i++ {
		// Distances of column i to columns i+1..k-1, which follow it.
		absDiffCols(col(i), cols[(i+1)*o.cap:], o.cap, dist[:k-1-i])
		for j := i + 1; j < k; j++ {
			v := 0.5 * (o.pair[i*k+i] + o.pair[j*k+j] + dist[j-i-1])
			o.pair[i*k+j], o.pair[j*k+i] = v, v
		}
	}
	o.n = n
}

// Logits returns the logits z, aliased: writes change the warm start of the
// next Run (call Policy to refresh pi before ExitGap).
func (o *Optimizer) Logits() []float64 { return o.z }

// Policy recomputes and returns pi = softmax(z), aliased: it is valid until
// the next call that changes the optimizer.
func (o *Optimizer) Policy() []float64 {
	Softmax(o.pi, o.z)
	o.gapKnown = false
	return o.pi
}

// CurrentPolicy returns pi = softmax(z) as left by the last Run, aliased.
func (o *Optimizer) CurrentPolicy() []float64 { return o.pi }

// DrawSamples replaces the loaded samples by Samples fresh posterior
// samples theta_i = mean_i + sd_i * N(0,1): it draws Samples*K standard
// normals from src (normal.Source.Fill) and uses them sample by sample,
// assigning a sample's normals to the arms in decreasing order of mean,
// which leaves the distribution unchanged and makes the sample nearly
// sorted already.
func (o *Optimizer) DrawSamples(src *normal.Source, mean, sd []float64) {
	k := o.k
	rank, keys := o.rank, o.keys[:k]
	// The means change by one arm per round: this insertion sort is linear.
	for i := 1; i < k; i++ {
		a := rank[i]
		x := mean[a]
		j := i
		for ; j > 0 && mean[rank[j-1]] < x; j-- {
			rank[j] = rank[j-1]
		}
		rank[j] = a
	}
	o.clearSamples()
	src.Fill(o.norm)
	if o.pair != nil {
		// Arm a's samples, column a, use the normals at a's rank position.
		for r, a := range rank {
			m, v := mean[a], sd[a]
			c := o.cols[int(a)*o.cap : int(a)*o.cap+o.cap]
			z := o.norm[r:]
			for s := range c {
				c[s] = m + v*z[s*k]
			}
		}
		o.buildPair(o.cap)
		return
	}
	if o.ord8 == nil {
		for s := 0; s < o.cap; s++ {
			z := o.norm[s*k : s*k+k]
			ord := o.ord32[o.nu*k : o.nu*k+k]
			for r, a := range rank {
				keys[r] = mean[a] + sd[a]*z[r]
				ord[r] = a
			}
			sortDesc(keys, ord)
			o.addSorted()
		}
		return
	}
	// The fast path reads the means, sds and arms in rank order from
	// arrays of length K, so that the per-sample loop has no bounds checks.
	mr, sr, r8 := o.mr[:k], o.sr[:k], o.rank8[:k]
	for r, a := range rank {
		mr[r], sr[r], r8[r] = mean[a], sd[a], uint8(a)
	}
	if o.codeIdx != nil {
		o.drawMerged(mr, sr, r8)
		return
	}
	if useRanks && k <= maxRankK {
		var src [maxRankK]float64
		for s := 0; s < o.cap; s++ {
			z := o.norm[s*k : s*k+k]
			z, sr = z[:len(mr)], sr[:len(mr)]
			for r := range mr {
				src[r] = mr[r] + sr[r]*z[r]
			}
			sortRanked(keys, o.ord8[o.nu*k:o.nu*k+k], &src, r8)
			o.addSorted()
		}
		return
	}
	for s := 0; s < o.cap; s++ {
		ord := o.ord8[o.nu*k : o.nu*k+k]
		z := o.norm[s*k : s*k+k]
		ord, z, mr, sr, r8 = ord[:len(keys)], z[:len(keys)], mr[:len(keys)], sr[:len(keys)], r8[:len(keys)]
		for r := range keys {
			keys[r] = mr[r] + sr[r]*z[r]
			ord[r] = r8[r]
		}
		o.sort8(keys, ord)
		o.addSorted()
	}
}

// drawMerged is the sampling loop for K <= maxDedupeK: each sample is
// sorted in fixed-size arrays and its gaps are added straight into the slot
// of its ordering (mergeGaps), without storing the sample first. mr, sr and r8 are the means, sds and arms in rank order.
func (o *Optimizer) drawMerged(mr, sr []float64, r8 []uint8) {
	k := len(mr)
	sr, r8 = sr[:k], r8[:k]
	var keys [maxDedupeK]float64
	var ord [maxDedupeK]uint8
	for s := 0; s < o.cap; s++ {
		z := o.norm[s*k : s*k+k]
		z = z[:k]
		for r := range k {
			keys[r] = mr[r] + sr[r]*z[r]
			ord[r] = r8[r]
		}
		sortDesc(keys[:k], ord[:k])
		o.mergeGaps(ord[:k], keys[:k])
		o.minSum += keys[k-1]
	}
	o.n += o.cap
}

// SetSamples replaces the loaded samples by theta[s][i], s < Samples.
func (o *Optimizer) SetSamples(theta [][]float64) {
	if len(theta) > o.cap {
		panic(fmt.Sprintf("remaxgrad: SetSamples: %d samples, room for %d", len(theta), o.cap))
	}
	k := o.k
	o.clearSamples()
	if o.pair != nil {
		for s, th := range theta {
			for a, x := range th[:k] {
				o.cols[a*o.cap+s] = x
			}
		}
		o.buildPair(len(theta))
		return
	}
	for _, th := range theta {
		copy(o.keys, th[:k])
		if o.ord8 != nil {
			ord := o.ord8[o.nu*k : o.nu*k+k]
			for i := range ord {
				ord[i] = uint8(i)
			}
			o.sort8(o.keys, ord)
		} else {
			ord := o.ord32[o.nu*k : o.nu*k+k]
			for i := range ord {
				ord[i] = int32(i)
			}
			sortDesc(o.keys, ord)
		}
		o.addSorted()
	}
}

func (o *Optimizer) clearSamples() {
	o.nu, o.n, o.minSum, o.gapKnown = 0, 0, 0, false // buildPair overwrites all of pair
	o.gen++
	if o.gen == 0 { // wrapped: forget every stamp
		clear(o.codeStamp)
		o.gen = 1
	}
}

// sortDesc sorts keys into decreasing order, permuting ord alongside, by
// insertion: efficient on the nearly sorted samples of DrawSamples.
func sortDesc[T uint8 | int32](keys []float64, ord []T) {
	ord = ord[:len(keys)]
	for i := 1; i < len(keys); i++ {
		x, a := keys[i], ord[i]
		j := i
		for ; j > 0 && keys[j-1] < x; j-- {
			keys[j] = keys[j-1]
			ord[j] = ord[j-1]
		}
		keys[j], ord[j] = x, a
	}
}

// sort8 is sortDesc for the fast path. For larger K it first distributes
// the keys into K equal-width buckets by value (a counting sort), so that
// the final insertion sort only fixes the order within buckets.
func (o *Optimizer) sort8(keys []float64, ord []uint8) {
	k := len(keys)
	if o.bucket == nil {
		sortDesc(keys, ord)
		return
	}
	lo, hi := keys[0], keys[0]
	for _, x := range keys[1:] {
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	width := hi - lo
	if !(width > 0) || math.IsInf(width, 0) { // all equal, NaN or infinite
		sortDesc(keys, ord)
		return
	}
	scale := float64(k) / width
	bucket, count := o.bucket[:k], o.count[:k+1]
	clear(count)
	for i, x := range keys {
		b := int((hi - x) * scale)
		if b >= k {
			b = k - 1
		}
		bucket[i] = uint8(b)
		count[b+1]++
	}
	for b := 1; b <= k; b++ {
		count[b] += count[b-1]
	}
	tkeys, tord := o.tkeys[:k], o.tord[:k]
	for i, b := range bucket {
		p := count[b]
		count[b]++
		tkeys[p], tord[p] = keys[i], ord[i]
	}
	ord = ord[:k]
	for i, x := range tkeys { // insertion sort from tkeys back into keys
		a := tord[i]
		j := i
		for ; j > 0 && keys[j-1] < x; j-- {
			keys[j] = keys[j-1]
			ord[j] = ord[j-1]
		}
		keys[j], ord[j] = x, a
	}
}

// addSorted records the sample whose sorted values are in o.keys and whose
// ordering was written to the next free ordering slot.
func (o *Optimizer) addSorted() {
	k, u := o.k, o.nu
	keys := o.keys[:k]
	o.minSum += keys[k-1]
	o.n++
	if o.codeIdx != nil {
		o.mergeGaps(o.ord8[u*k:u*k+k], keys)
		return
	}
	d := o.diff[u*k : u*k+k]
	d, next := d[:k-1], keys[1:]
	for r := range d {
		d[r] = keys[r] - next[r]
	}
	d = d[:k]
	d[k-1] = 0
	o.nu++
}

// mergeGaps adds the gaps keys[r] - keys[r+1] of a sorted sample with
// ordering ord to the slot of that ordering (K <= maxDedupeK), opening a
// slot, with ord copied into it, for an ordering not seen this round.
func (o *Optimizer) mergeGaps(ord []uint8, keys []float64) {
	k := o.k
	code := 0
	for _, a := range ord[:k] {
		code = code*k + int(a)
	}
	var u int
	if o.codeStamp[code] == o.gen {
		u = int(o.codeIdx[code])
	} else {
		u = o.nu
		o.codeStamp[code], o.codeIdx[code] = o.gen, int32(u)
		o.nu++
		copy(o.ord8[u*k:u*k+k], ord)
		clear(o.diff[u*k : u*k+k])
	}
	d := o.diff[u*k : u*k+k]
	d, keys = d[:k], keys[:k]
	for r := 0; r+1 < k; r++ {
		d[r] += keys[r] - keys[r+1]
	}
}

// Objective returns the sample-average objective Jhat_M(pi) of the loaded
// samples at a point pi of the simplex, via the summation by parts
// J = theta_(K) + sum_{r<K} (theta_(r) - theta_(r+1)) (1 - (1-P_r)^M).
func (o *Optimizer) Objective(pi []float64) float64 {
	k := o.k
	if o.pair != nil {
		var j float64
		for i := 0; i < k; i++ {
			var r float64
			for l, x := range o.pair[i*k : i*k+k] {
				r += x * pi[l]
			}
			j += pi[i] * r
		}
		return j / float64(o.n)
	}
	var j float64
	for u := 0; u < o.nu; u++ {
		d := o.diff[u*k : u*k+k]
		var t float64 // tail mass 1 - P_r
		for r := k - 1; r >= 0; r-- {
			j += d[r] * (1 - powInt(t, o.m))
			t += pi[o.arm(u, r)]
		}
	}
	return (o.minSum + j) / float64(o.n)
}

// arm returns the arm of rank r in ordering u.
func (o *Optimizer) arm(u, r int) int {
	if o.ord8 != nil {
		return int(o.ord8[u*o.k+r])
	}
	return int(o.ord32[u*o.k+r])
}

// Gradient writes into g the gradient of Jhat_M at a point pi of the
// simplex: eq. remax-grad-pi averaged over the loaded samples.
func (o *Optimizer) Gradient(g, pi []float64) {
	k := o.k
	if o.pair != nil {
		// 2 Ghat pi is the gradient of pi^T Ghat pi; eq. remax-grad-pi is
		// the gradient of another extension of the same function off the
		// simplex. On the simplex the two differ by a multiple of the ones
		// vector, which neither the KKT gap nor the logit gradient sees:
		// per sample, the sorted form gives the sample's lowest arm 0,
		// where 2 Ghat pi gives 2 <pi, theta>. Subtracting the average,
		// 2 <pi, mean theta>, returns eq. remax-grad-pi itself. The factor
		// M = 2 and the 1/n are applied below.
		pi = pi[:k]
		var dot float64
		for l := range pi {
			dot += o.pair[l*k+l] * pi[l]
		}
		pairGrad(g[:k], o.pair, pi, dot)
	} else if o.ord8 == nil {
		clear(g)
		o.gradLarge(g, pi)
	} else {
		copy(o.pa[:k], pi)
		clear(o.ga[:k])
		if o.m == 2 {
			o.grad2(o.ga, o.pa)
		} else {
			o.gradM(o.ga, o.pa)
		}
		copy(g, o.ga[:k])
	}
	scale := float64(o.m) / float64(o.n)
	for i := range g {
		g[i] *= scale
	}
}

// grad2 adds sum_{r'>=r} d_(r') (1-P_{r'}) to g_(r) for every loaded
// ordering (M = 2, leaving out the factor M). Each pass runs backwards over
// the ranks carrying the tail mass t = 1 - P_{r'} and the running sum c;
// four orderings are interleaved so that their dependency chains overlap.
func (o *Optimizer) grad2(g, pi *[maxSmallK]float64) {
	k := o.k
	u := 0
	for ; u+3 < o.nu; u += 4 {
		ord, dif := o.ord8[u*k:u*k+4*k], o.diff[u*k:u*k+4*k]
		oa, ob, oc, od := ord[:k], ord[k:2*k], ord[2*k:3*k], ord[3*k:]
		da, db, dc, dd := dif[:k], dif[k:2*k], dif[2*k:3*k], dif[3*k:]
		ob, oc, od = ob[:len(oa)], oc[:len(oa)], od[:len(oa)]
		da, db, dc, dd = da[:len(oa)], db[:len(oa)], dc[:len(oa)], dd[:len(oa)]
		var ta, tb, tc, td, ca, cb, cc, cd float64
		for r := len(oa) - 1; r >= 0; r-- {
			ia, ib, ic, id := oa[r], ob[r], oc[r], od[r]
			ca += da[r] * ta
			cb += db[r] * tb
			cc += dc[r] * tc
			cd += dd[r] * td
			g[ia] += ca
			g[ib] += cb
			g[ic] += cc
			g[id] += cd
			ta += pi[ia]
			tb += pi[ib]
			tc += pi[ic]
			td += pi[id]
		}
	}
	for ; u < o.nu; u++ {
		oa, da := o.ord8[u*k:u*k+k], o.diff[u*k:u*k+k]
		da = da[:len(oa)]
		var ta, ca float64
		for r := len(oa) - 1; r >= 0; r-- {
			ia := oa[r]
			ca += da[r] * ta
			g[ia] += ca
			ta += pi[ia]
		}
	}
}

// gradM is grad2 for M > 2: rank r' is weighted by (1-P_{r'})^{M-1}.
func (o *Optimizer) gradM(g, pi *[maxSmallK]float64) {
	k, e := o.k, o.m-1
	u := 0
	for ; u+3 < o.nu; u += 4 {
		ord, dif := o.ord8[u*k:u*k+4*k], o.diff[u*k:u*k+4*k]
		oa, ob, oc, od := ord[:k], ord[k:2*k], ord[2*k:3*k], ord[3*k:]
		da, db, dc, dd := dif[:k], dif[k:2*k], dif[2*k:3*k], dif[3*k:]
		ob, oc, od = ob[:len(oa)], oc[:len(oa)], od[:len(oa)]
		da, db, dc, dd = da[:len(oa)], db[:len(oa)], dc[:len(oa)], dd[:len(oa)]
		var ta, tb, tc, td, ca, cb, cc, cd float64
		for r := len(oa) - 1; r >= 0; r-- {
			ia, ib, ic, id := oa[r], ob[r], oc[r], od[r]
			// w = t^e with e = M-1 >= 2; the paper's M <= 4 take no loop.
			wa, wb, wc, wd := ta*ta, tb*tb, tc*tc, td*td
			for i := 2; i < e; i++ {
				wa *= ta
				wb *= tb
				wc *= tc
				wd *= td
			}
			ca += da[r] * wa
			cb += db[r] * wb
			cc += dc[r] * wc
			cd += dd[r] * wd
			g[ia] += ca
			g[ib] += cb
			g[ic] += cc
			g[id] += cd
			ta += pi[ia]
			tb += pi[ib]
			tc += pi[ic]
			td += pi[id]
		}
	}
	for ; u < o.nu; u++ {
		oa, da := o.ord8[u*k:u*k+k], o.diff[u*k:u*k+k]
		da = da[:len(oa)]
		var ta, ca float64
		for r := len(oa) - 1; r >= 0; r-- {
			ia := oa[r]
			ca += da[r] * powInt(ta, e)
			g[ia] += ca
			ta += pi[ia]
		}
	}
}

// gradLarge is the plain form of grad2 and gradM for K > maxSmallK.
func (o *Optimizer) gradLarge(g, pi []float64) {
	k, e := o.k, o.m-1
	for u := 0; u < o.nu; u++ {
		oa, da := o.ord32[u*k:u*k+k], o.diff[u*k:u*k+k]
		da = da[:len(oa)]
		var ta, ca float64
		for r := len(oa) - 1; r >= 0; r-- {
			ia := oa[r]
			ca += da[r] * powInt(ta, e)
			g[ia] += ca
			ta += pi[ia]
		}
	}
}

// powInt returns x^n for n >= 0 by repeated multiplication (n is small).
func powInt(x float64, n int) float64 {
	p := 1.0
	for ; n > 0; n-- {
		p *= x
	}
	return p
}

// Run performs the inner loop of Algorithm 2 on the loaded samples: from
// the current logits, with Adam's moments reset, up to Steps times it
// evaluates g = grad Jhat_M at pi = softmax(z), stops if the KKT gap
// (eq. kkt-gap) is <= Tol, and otherwise takes an Adam step on z along the
// logit gradient pi * (g - <g,pi>) (eq. logit-grad). It returns the number
// of Adam steps taken and whether the gap test stopped the loop, and leaves
// pi = softmax(z) in CurrentPolicy.
func (o *Optimizer) Run() (steps int, stopped bool) {
	if o.robust {
		return o.runRobust()
	}
	z, pi, g, mom, vel := o.z, o.pi, o.g, o.mom, o.vel
	pi, g, mom, vel = pi[:len(z)], g[:len(z)], mom[:len(z)], vel[:len(z)]
	clear(mom)
	clear(vel)
	Softmax(pi, z)
	b1t, b2t := 1.0, 1.0
	for l := 0; l < o.steps; l++ {
		o.Gradient(g, pi)
		mx, gp := g[0], 0.0
		for i, x := range g {
			mx = max(mx, x)
			gp += x * pi[i]
		}
		if gap := mx - gp; gap <= o.tol {
			o.gap, o.gapKnown = gap, true
			return l, true
		}
		b1t *= adamBeta1
		b2t *= adamBeta2
		a, c2 := o.lr/(1-b1t), 1/(1-b2t)
		for i := range z {
			gz := pi[i] * (g[i] - gp)
			mom[i] = adamBeta1*mom[i] + (1-adamBeta1)*gz
			vel[i] = adamBeta2*vel[i] + (1-adamBeta2)*gz*gz
			z[i] += a * mom[i] / (math.Sqrt(vel[i]*c2) + adamEps)
		}
		Softmax(pi, z)
	}
	o.gapKnown = false
	return o.steps, false
}

// ExitGap returns the KKT gap of the loaded samples at pi = softmax(z): the
// gap that stopped the last Run, or else one more gradient evaluation.
func (o *Optimizer) ExitGap() float64 {
	if !o.gapKnown {
		o.Gradient(o.g, o.pi)
		o.gap, o.gapKnown = KKTGap(o.g, o.pi), true
	}
	return o.gap
}

// guardLogits shifts the logits so that the largest is 0, which leaves pi
// unchanged, and raises every logit below -F to -F, F the logit_floor
// parameter: the robust variant's warm start. Without it a logit can drift so far below
// the top one that its Adam steps vanish (see runRobust) and its arm is
// never pulled again, whatever the posterior says.
func (o *Optimizer) guardLogits() {
	z := o.z
	mx := math.Inf(-1)
	for _, x := range z {
		mx = max(mx, x)
	}
	for i, x := range z {
		z[i] = max(x-mx, -o.floor)
	}
}

// runRobust is Run for the robust variant. It differs from Algorithm 2 in
// three ways, none of which depends on the scale of the rewards:
//
//   - it warm-starts from guarded logits (guardLogits);
//   - Adam's epsilon is relative: 1e-8 times the range max_i g_i - min_i g_i
//     of the round's first gradient. An absolute 1e-8 dwarfs the logit
//     gradient pi_i (g_i - <g,pi>) once pi_i or the gradient's differences
//     are small, and Adam's steps then shrink to nothing;
//   - it stops after the first step that moves pi by at most TVTol in
//     total variation, 1/2 sum_i |pi_i - pi'_i|, instead of on an absolute
//     KKT gap. It always takes one step (when Steps > 0), and stops at once
//     when all gradients are equal (a stationary point).
//
// Multiplying every reward by a power of two therefore leaves the steps and
// the arms drawn unchanged, bit for bit.
func (o *Optimizer) runRobust() (steps int, stopped bool) {
	z, pi, g, mom, vel, prev := o.z, o.pi, o.g, o.mom, o.vel, o.prev
	pi, g, mom, vel, prev = pi[:len(z)], g[:len(z)], mom[:len(z)], vel[:len(z)], prev[:len(z)]
	clear(mom)
	clear(vel)
	o.guardLogits()
	Softmax(pi, z)
	o.gapKnown = false
	b1t, b2t := 1.0, 1.0
	var eps float64
	for l := 0; l < o.steps; l++ {
		o.Gradient(g, pi)
		mx, mn, gp := g[0], g[0], 0.0
		for i, x := range g {
			mx = max(mx, x)
			mn = min(mn, x)
			gp += x * pi[i]
		}
		if l == 0 {
			if !(mx > mn) { // every arm's gradient is equal: stationary
				o.gap, o.gapKnown = mx-gp, true
				return 0, true
			}
			eps = adamEps * (mx - mn)
		}
		b1t *= adamBeta1
		b2t *= adamBeta2
		a, c2 := o.lr/(1-b1t), 1/(1-b2t)
		for i := range z {
			gz := pi[i] * (g[i] - gp)
			mom[i] = adamBeta1*mom[i] + (1-adamBeta1)*gz
			vel[i] = adamBeta2*vel[i] + (1-adamBeta2)*gz*gz
			z[i] += a * mom[i] / (math.Sqrt(vel[i]*c2) + eps)
		}
		copy(prev, pi)
		Softmax(pi, z)
		var tv float64
		for i, x := range pi {
			tv += math.Abs(x - prev[i])
		}
		if tv/2 <= o.tvTol {
			return l + 1, true
		}
	}
	return o.steps, false
}
