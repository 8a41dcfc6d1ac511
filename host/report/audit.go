package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/regretbench/regretbench/host/results"
)

// AuditOutcome says in one line what the audit of f (bench run --audit,
// on by default in a sealed run) found: how many replications of each
// policy were replayed alone, and whether every one matched the run or
// which policies failed; and why the audit was on when it was on by
// default. "" when f was not audited. The text table and the HTML report
// show it under the tables, so that the outcome is not only in the JSON.
func AuditOutcome(f *results.File) string {
	var audited, failed []string
	counts := map[int]bool{}
	why := ""
	for _, p := range f.Policies {
		a := p.Audit
		if a == nil {
			continue
		}
		audited = append(audited, p.Label)
		counts[len(a.Replications)] = true
		if !a.OK {
			failed = append(failed, p.Label)
		}
		if a.Default != "" {
			why = a.Default
		}
	}
	if len(audited) == 0 {
		return ""
	}
	n := "some"
	if len(counts) == 1 {
		for c := range counts {
			n = strconv.Itoa(c)
		}
	}
	reps := "replications"
	if n == "1" {
		reps = "replication"
	}
	s := fmt.Sprintf("%s %s of each policy replayed alone", n, reps)
	if len(audited) == 1 {
		s = fmt.Sprintf("%s %s of %s replayed alone", n, reps, audited[0])
	}
	if len(failed) == 0 {
		s += ": all matched the run"
	} else {
		s += fmt.Sprintf(": FAILED for %s (its values alone differ from the run's: see the policy's error)", strings.Join(failed, ", "))
		if len(failed) > 1 {
			s = strings.Replace(s, "its values alone differ", "their values alone differ", 1)
			s = strings.Replace(s, "the policy's error", "the policies' errors", 1)
		}
	}
	if why != "" {
		s += "; on by default: " + why
	}
	return s
}
