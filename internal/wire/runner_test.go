package wire

import (
	"strings"
	"testing"
)

// TestRegisterRunner checks the registration of the policy runner: none
// registered is an error naming the fix, the registered one serves
// InProcess, and a second or nil registration panics.
func TestRegisterRunner(t *testing.T) {
	saved := runner
	t.Cleanup(func() { runner = saved })
	runner = nil // this package's tests do not link sdk; be sure
	if _, err := InProcess(42); err == nil || !strings.Contains(err.Error(), "import package sdk") {
		t.Fatalf("InProcess with no runner: %v, want an error saying to import package sdk", err)
	}
	var got any
	RegisterRunner(func(p any) (Server, error) { got = p; return nil, nil })
	if _, err := InProcess(42); err != nil || got != 42 {
		t.Fatalf("InProcess(42) = %v, runner saw %v; want the registered runner called with 42", err, got)
	}
	for _, tc := range []struct {
		name string
		f    func(any) (Server, error)
	}{
		{"twice", func(any) (Server, error) { return nil, nil }},
		{"nil", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterRunner %s did not panic", tc.name)
				}
			}()
			RegisterRunner(tc.f)
		})
	}
}
