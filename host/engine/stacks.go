package engine

import (
	"fmt"
	"io"
	"strings"

	"github.com/regretbench/regretbench/host/results"
	"github.com/regretbench/regretbench/internal/client"
)

// WriteStacks writes the full Go stack of every policy of files that
// failed with a panic or a Go fatal error, which a failed policy's
// results error keeps after its message (job.fail); the message itself
// quotes only the panic and the policy's own frame.
func WriteStacks(w io.Writer, files ...*results.File) {
	for _, f := range files {
		for _, p := range f.Policies {
			if p.Status != results.StatusFailed {
				continue
			}
			if _, stack := client.SplitPanic(p.Error); stack != "" {
				what := "panicked"
				if strings.Contains(p.Error, "fatal error: ") {
					what = "died of a Go fatal error"
				}
				fmt.Fprintf(w, "bench: policy %q (plugin %s) %s; its stack:\n  %s\n",
					p.Label, p.Plugin, what, strings.ReplaceAll(stack, "\n", "\n  "))
			}
		}
	}
}
