package htmlreport

import (
	"errors"
	"io"

	"github.com/regretbench/regretbench/host/plot"
)

// FailFigure makes drawing the figure named name fail with why, until the
// returned function is called. Tests that use it must not run in parallel.
func FailFigure(name, why string) (restore func()) {
	was := encodeSVG
	encodeSVG = func(fig plot.Figure, w io.Writer) error {
		if fig.Name == name {
			return errors.New(why)
		}
		return was(fig, w)
	}
	return func() { encodeSVG = was }
}
