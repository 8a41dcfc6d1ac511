package exp3

// pending holds, for each round the policy drew whose reward has not
// arrived, the probability with which the drawn arm was chosen: a ring over
// the rounds from the oldest still pending to the newest drawn, 8 bytes a
// round. Under immediate feedback it holds one round at most; under a delay
// of D rounds, about D. A probability is > 0, so 0 marks a round not drawn
// or already taken.
type pending struct {
	p    []float64 // capacity a power of two; round r lives in p[r & (len-1)]
	base int       // the oldest round that may be pending
	next int       // one past the newest round put
}

// slot returns the element of round r.
func (q *pending) slot(r int) *float64 { return &q.p[r&(len(q.p)-1)] }

// put records the probability of round t, which is after every round put
// before.
func (q *pending) put(t int, prob float64) {
	if q.base == q.next {
		q.base, q.next = t, t // empty: start the span at t
	}
	if span := t + 1 - q.base; span > len(q.p) {
		q.grow(span)
	}
	for r := q.next; r < t; r++ {
		*q.slot(r) = 0 // rounds not drawn
	}
	*q.slot(t) = prob
	q.next = t + 1
}

// grow makes room for span rounds, keeping the pending ones.
func (q *pending) grow(span int) {
	n := max(2*len(q.p), 2)
	for n < span {
		n *= 2
	}
	old := q.p
	q.p = make([]float64, n)
	for r := q.base; r < q.next; r++ {
		q.p[r&(n-1)] = old[r&(len(old)-1)]
	}
}

// take returns the probability of round t and forgets it, or false when
// round t was not drawn or was taken before.
func (q *pending) take(t int) (float64, bool) {
	if t < q.base || t >= q.next {
		return 0, false
	}
	s := q.slot(t)
	prob := *s
	if prob == 0 {
		return 0, false
	}
	*s = 0
	for q.base < q.next && *q.slot(q.base) == 0 {
		q.base++
	}
	return prob, true
}
