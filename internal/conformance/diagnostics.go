package conformance

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/regretbench/regretbench/internal/client"
)

// ruleDiagnosticsAgree is the rule of diagnosticsAgree.
const ruleDiagnosticsAgree = "diagnostics-agree"

// diagnosticsAgree is checked after diagnostics-passive: that rule asks
// for diagnostics and counts them, this one compares their values.
var diagnosticsAgree = Rule{
	Name: ruleDiagnosticsAgree,
	explain: text("diagnostics are the same over every transport: asked for every few rounds, each declared " +
		"diagnostic has, bit for bit, the values it has over the reference (in process for a plugin value, unary " +
		"Step in a fresh process for an executable), so none is lost on the way as zeros (as a Python " +
		"BatchPolicy's were over the step socket when it assigned st.diagnostics an array of its own)"),
	check: checkDiagnosticsAgree,
}

func init() {
	r := diagnosticsAgree
	r.Doc = r.explain(vocabGo)
	i := slices.IndexFunc(catalogue, func(r Rule) bool { return r.Name == "diagnostics-passive" })
	catalogue = slices.Insert(catalogue, i+1, r)
}

func checkDiagnosticsAgree(h *Target) error {
	c, d, err := h.describe()
	if err != nil {
		return err
	}
	if len(d.Diagnostics) == 0 {
		return nil // nothing to disagree on
	}
	ref, err := h.connOver(h.s.ref)
	if err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	s := h.plan.session(draw{div: 2})
	s.diagEvery = 1 + h.plan.r.IntN(5)
	got, err := h.diagnosed(c, s)
	if err != nil {
		return err
	}
	want, err := h.diagnosed(ref, s)
	if err != nil {
		return fmt.Errorf("over %s: %w", h.s.ref.name, err)
	}
	var errs []error
	for k, name := range d.Diagnostics {
		if k >= len(got.values) || k >= len(want.values) {
			break // diagnostics-passive counts them
		}
		g, w := got.values[k], want.values[k]
		at := -1
		for j := range min(len(g), len(w)) {
			if !sameFloat(g[j], w[j]) {
				at = j
				break
			}
		}
		if at < 0 {
			continue
		}
		c, i := at/len(s.reps), at%len(s.reps)
		where := fmt.Sprintf("round %d, replication %d", got.rounds[c], s.reps[i])
		if allZero(g) && !allZero(w) {
			errs = append(errs, fmt.Errorf("diagnostic %q is 0 in every replication at every round over %s, but not over %s (%s: %v): "+
				"its values are lost on the way", name, h.tr.name, h.s.ref.name, where, w[at]))
			continue
		}
		errs = append(errs, fmt.Errorf("diagnostic %q is %v over %s, %v over %s (%s)", name, g[at], h.tr.name, w[at], h.s.ref.name, where))
	}
	return errors.Join(errs...)
}

// diagnosed is a session's diagnostics: values[d] holds diagnostic d at
// each round asked for, replication after replication.
type diagnosed struct {
	rounds []int
	values [][]float64
}

// diagnosed plays s on c and collects the diagnostics of every round it
// asks for them.
func (h *Target) diagnosed(c client.Conn, s spec) (*diagnosed, error) {
	p, err := h.open(c, s)
	if err != nil {
		return nil, err
	}
	var out diagnosed
	for !p.done() {
		if err := p.step(); err != nil {
			return nil, err
		}
		if p.round%s.diagEvery != 0 {
			continue
		}
		out.rounds = append(out.rounds, p.round)
		for d, vals := range p.diags {
			if d == len(out.values) {
				out.values = append(out.values, nil)
			}
			out.values[d] = append(out.values[d], vals...)
		}
	}
	return &out, p.close()
}

// sameFloat reports whether a and b are the same float64, NaN included.
func sameFloat(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

func allZero(xs []float64) bool {
	for _, x := range xs {
		if x != 0 {
			return false
		}
	}
	return true
}
