package sdk

import "github.com/regretbench/regretbench/internal/wire"

// step plays a round of session id as a transport would, for tests of
// the runner.
func (c *core) step(id uint64, round int, prevArms []int32, prevRewards []float64, arrivals []Arrival, wantDiag bool) (wire.StepResult, error) {
	s, err := c.session(id)
	if err != nil {
		return wire.StepResult{}, err
	}
	st := wire.Step{Round: round, PrevArms: prevArms, PrevRewards: prevRewards, WantDiag: wantDiag}
	for _, a := range arrivals {
		st.Arrivals = append(st.Arrivals, wire.Arrival(a))
	}
	return s.Step(&st)
}
