package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseMargin reads a relative margin written as a percentage ("5%") or a
// fraction ("0.05"). It must be finite and at least 0.
func ParseMargin(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return 0, fmt.Errorf("margin %q: want a percentage like 5%% or a fraction like 0.05", s)
	}
	if pct {
		v /= 100
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("margin %q: must be finite and >= 0", s)
	}
	return v, nil
}
