package cli

import (
	"slices"
	"strings"
	"testing"
)

// TestOutputFlagErrors: bad flag values are input errors (exit 2) naming
// the flag, found before a run (rounds beyond the horizon are run's:
// run.TestAddRounds).
func TestOutputFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    outputOptions
		want string
	}{
		{"format", outputOptions{format: "xml"}, "--format"},
		{"at syntax", outputOptions{format: "table", at: "10,abc"}, "--at"},
		{"at with json", outputOptions{format: "json", at: "10"}, "--at does not apply"},
		{"plot format", outputOptions{format: "table", plotDir: "x", plotFormats: "gif"}, "--plot-format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.o.parse()
			if err == nil || !strings.Contains(err.Error(), tc.want) || ExitCode(err) != ExitInput {
				t.Fatalf("err = %v (exit %d), want exit %d and %q", err, ExitCode(err), ExitInput, tc.want)
			}
		})
	}
	ok := outputOptions{format: "csv", at: "10,20,200"}
	if ro, _, err := ok.parse(); err != nil || !slices.Equal(ro.At, []int{10, 20, 200}) {
		t.Errorf("valid flags: %v, %v", ro.At, err)
	}
}
