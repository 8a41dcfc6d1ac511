package docs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// silentSkip matches a skip that gives no reason: Go's t.Skip(),
// t.SkipNow(), t.Skip("") and t.Skipf(""); Python's bare @unittest.skip
// decorator (which skips with an empty reason), skip("") and skipTest()
// or skipTest("").
var silentSkip = map[string]*regexp.Regexp{
	".go": regexp.MustCompile(`\.(?:Skip\(\s*(?:""|` + "``" + `)?\s*\)|SkipNow\(\)|Skipf\(\s*(?:""|` + "``" + `)\s*\))`),
	".py": regexp.MustCompile(`(?m)(?:@unittest\.skip\s*$|\bskip(?:If|Unless)?\([^,()]*(?:,\s*)?(?:""|'')\s*\)|\bskipTest\(\s*(?:""|'')?\s*\)|pytest\.skip\(\s*\))`),
}

// TestSkipsSayWhy: every skipped test of the repository, Go and Python,
// says why it was skipped (a missing tool, -short, a kernel feature), so
// that a skip in a test log is never silent about what did not run.
func TestSkipsSayWhy(t *testing.T) {
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "bin" || name == "node_modules" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		re := silentSkip[filepath.Ext(path)]
		if re == nil || filepath.Base(path) == "skips_test.go" { // this file shows the patterns
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		checked++
		text := string(raw)
		for _, loc := range re.FindAllStringIndex(text, -1) {
			line := strings.Count(text[:loc[0]], "\n") + 1
			t.Errorf("%s:%d: %q skips without saying why: give the reason (what is missing, how to run it)", path, line, strings.TrimSpace(text[loc[0]:loc[1]]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("only %d Go and Python files checked: the walk no longer sees the repository", checked)
	}
}

// TestSilentSkipPattern: the patterns of TestSkipsSayWhy catch a skip
// without a reason and let one with a reason pass.
func TestSilentSkipPattern(t *testing.T) {
	for _, c := range []struct {
		ext, src string
		silent   bool
	}{
		{".go", "t.Skip()", true},
		{".go", "t.SkipNow()", true},
		{".go", `t.Skip("")`, true},
		{".go", `t.Skipf("")`, true},
		{".go", `t.Skip("-short: skips the slow runs")`, false},
		{".go", `t.Skipf("no %s: %v", py, err)`, false},
		{".go", "t.Skip(res.Skipped)", false},
		{".py", "@unittest.skip\ndef test_x(self):", true},
		{".py", `@unittest.skip("")`, true},
		{".py", `@unittest.skipIf(NO_GRPC, "")`, true},
		{".py", "self.skipTest()", true},
		{".py", `self.skipTest('')`, true},
		{".py", `@unittest.skipIf(helpers.NO_GRPC, helpers.NO_GRPC)`, false},
		{".py", `@unittest.skip("needs grpc_tools")`, false},
		{".py", `self.skipTest("missing " + lack)`, false},
	} {
		if got := silentSkip[c.ext].MatchString(c.src); got != c.silent {
			t.Errorf("%s %q: silent %v, want %v", c.ext, c.src, got, c.silent)
		}
	}
}
