package conform

import (
	"fmt"
	"io"
	"strings"

	"github.com/regretbench/regretbench/internal/conformance"
)

// report prints the kit's results as they come: every one when verbose,
// else one entry per failed or skipped rule, its transports together.
type report struct {
	w       io.Writer
	verbose bool
	replay  func(rule string) string // the command that replays a rule

	passed, skipped int
	failed          []string             // the failed checks' names
	pending         []conformance.Result // the current rule's results (not verbose)
	// Consecutive rules skipped for one reason, printed on one line (not
	// verbose).
	skipRules  []string
	skipReason string
}

// detailIndent indents the lines under a result's.
const detailIndent = "       "

func (r *report) add(res conformance.Result) {
	switch {
	case res.Skipped != "":
		r.skipped++
	case res.Err != nil:
		r.failed = append(r.failed, res.Name())
	default:
		r.passed++
	}
	if r.verbose {
		r.printVerbose(res)
		return
	}
	if len(r.pending) > 0 && r.pending[0].Rule != res.Rule {
		r.flush()
	}
	r.pending = append(r.pending, res)
}

func (r *report) printVerbose(res conformance.Result) {
	w := r.w
	switch {
	case res.Skipped != "":
		fmt.Fprintf(w, "SKIP %s: %s\n", res.Name(), res.Skipped)
	case res.Err != nil:
		fmt.Fprintf(w, "FAIL %s: %s\n", res.Name(), indentRest(res.Err.Error(), detailIndent))
		fmt.Fprintf(w, "%srule: %s\n", detailIndent, res.Doc)
	default:
		fmt.Fprintf(w, "PASS %s\n", res.Name())
	}
	if len(res.Sessions) > 0 {
		fmt.Fprintf(w, "%ssessions: %s\n", detailIndent, strings.Join(res.Sessions, "; "))
	}
	if res.Err != nil {
		fmt.Fprintf(w, "%sreproduce: %s\n", detailIndent, r.replay(res.Rule))
	}
}

// flush prints the pending rule's entry: its first failure, else that it
// was skipped (one line for consecutive rules skipped for one reason).
func (r *report) flush() {
	rs := r.pending
	r.pending = nil
	if len(rs) == 0 {
		return
	}
	var fails, others []conformance.Result
	for _, res := range rs {
		if res.Err != nil {
			fails = append(fails, res)
		} else if res.Skipped == "" {
			others = append(others, res)
		}
	}
	w := r.w
	if len(fails) == 0 {
		if len(others) > 0 || rs[0].Skipped == "" {
			return // passed (where it applied)
		}
		if rs[0].Skipped != r.skipReason {
			r.flushSkips()
		}
		r.skipRules, r.skipReason = append(r.skipRules, rs[0].Rule), rs[0].Skipped
		return
	}
	r.flushSkips()
	first := fails[0]
	fmt.Fprintf(w, "FAIL %s: %s\n", first.Name(), firstLine(first.Err.Error()))
	var also []string
	for _, f := range fails[1:] {
		also = append(also, f.Transport)
	}
	if len(also) > 0 {
		fmt.Fprintf(w, "%salso over %s (-v: every failure)\n", detailIndent, strings.Join(also, ", "))
	} else if strings.Contains(first.Err.Error(), "\n") {
		fmt.Fprintf(w, "%s(-v: every failure)\n", detailIndent)
	}
	fmt.Fprintf(w, "%srule: %s\n", detailIndent, first.Doc)
	fmt.Fprintf(w, "%sreproduce: %s\n", detailIndent, r.replay(first.Rule))
}

// flushSkips prints the rules skipped for one reason, if any.
func (r *report) flushSkips() {
	if len(r.skipRules) > 0 {
		fmt.Fprintf(r.w, "SKIP %s: %s\n", strings.Join(r.skipRules, ", "), r.skipReason)
	}
	r.skipRules, r.skipReason = nil, ""
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// indentRest indents every line of s but the first.
func indentRest(s, indent string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+indent)
}
