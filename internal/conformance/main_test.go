package conformance

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// TestMain runs more parallel tests than the default of one per core,
// unless -parallel is given: the parallel tests here (TestStepTimeout's
// cases) spend their time waiting out a step timeout, not computing.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	}
	os.Exit(m.Run())
}
