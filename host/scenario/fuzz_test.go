package scenario

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse: no input makes Parse panic; every error is a *Error naming
// the source on each of its lines; and what Parse accepts validates and
// survives a YAML() round trip. The seed corpus (testdata/fuzz/FuzzParse,
// plus the shipped scenarios and the valid file of TestMalformed) runs
// with plain go test; run the fuzzer with
//
//	go test -run x -fuzz FuzzParse -fuzztime 60s ./host/scenario
func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	for _, name := range Shipped() {
		s, err := Named(name)
		if err != nil {
			f.Fatal(err)
		}
		data, err := s.YAML()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *scenario.Error", err, err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "scenario fuzz.yaml: ") {
					t.Fatalf("error line %q does not name the source", line)
				}
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("Parse accepted a scenario Validate rejects: %v", err)
		}
		out, err := s.YAML()
		if err != nil {
			t.Fatalf("YAML() of an accepted scenario: %v", err)
		}
		if _, err := Parse("fuzz.yaml", out); err != nil {
			t.Fatalf("reparsing YAML():\n%s\n%v", out, err)
		}
	})
}
