package scenario

import (
	"fmt"
	"io"
	"strings"

	"github.com/regretbench/regretbench/host/internal/termsafe"
)

// WriteShipped writes bench scenarios' listing of the shipped scenarios to
// w: per scenario a line of its name (in a column as wide as the longest),
// arms, horizon, replications and description, and a line of its
// policies.
func WriteShipped(w io.Writer) error {
	width := 20
	for _, name := range Shipped() {
		width = max(width, len(name))
	}
	for _, name := range Shipped() {
		sc, err := Named(name)
		if err != nil {
			return err
		}
		var labels []string
		for _, p := range sc.Policies {
			labels = append(labels, p.Label)
		}
		esc := termsafe.String // shipped, yet shown as any scenario would be
		fmt.Fprintf(w, "%-*s K=%-3d T=%-6d runs=%-5d %s\n%*s policies: %s\n", width, esc(name), sc.K(), sc.Horizon, sc.Runs, esc(sc.Description), width, "", esc(strings.Join(labels, ", ")))
	}
	return nil
}
