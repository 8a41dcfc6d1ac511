package cmdutil

import (
	"errors"

	"github.com/spf13/cobra"
)

// UsageError marks an error in how bench was called: a bad flag, a
// missing or extra argument, an unknown command. Run prints the usage
// hint after it and exits 2.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

// IsUsage reports errors marked as UsageError.
func IsUsage(err error) bool {
	var u UsageError
	return errors.As(err, &u)
}

// MarkUsage makes every flag and argument error of c and its subcommands
// a UsageError: cobra's flag parsing reports through the FlagErrorFunc
// (inherited by subcommands), and each command's Args validator is
// wrapped.
func MarkUsage(c *cobra.Command) {
	if !c.HasParent() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return UsageError{err} })
	}
	if args := c.Args; args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return UsageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		MarkUsage(sub)
	}
}
