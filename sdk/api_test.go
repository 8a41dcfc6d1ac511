package sdk

import (
	"flag"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var updateAPI = flag.Bool("update-api", false, "rewrite testdata/api.txt from the package's exported names")

// TestAuthorAPI: package sdk exports an author's API and nothing else
// (`go doc ./sdk`). Its exported names are kept in testdata/api.txt, so
// that a name added to the package, host machinery above all, is a
// reviewed change of that file: run `go test ./sdk -run AuthorAPI
// -update-api` to accept one.
func TestAuthorAPI(t *testing.T) {
	fset := token.NewFileSet()
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "github.com/regretbench/regretbench/sdk")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	values := func(kind string, vs []*doc.Value) {
		for _, v := range vs {
			for _, n := range v.Names {
				names = append(names, kind+" "+n)
			}
		}
	}
	funcs := func(prefix string, fs []*doc.Func) {
		for _, f := range fs {
			names = append(names, "func "+prefix+f.Name)
		}
	}
	values("const", pkg.Consts)
	values("var", pkg.Vars)
	funcs("", pkg.Funcs)
	for _, ty := range pkg.Types {
		names = append(names, "type "+ty.Name)
		values("const", ty.Consts)
		values("var", ty.Vars)
		funcs("", ty.Funcs)
		funcs(ty.Name+".", ty.Methods)
	}
	slices.Sort(names)
	got := strings.Join(names, "\n") + "\n"
	const golden = "testdata/api.txt"
	if *updateAPI {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("package sdk's exported names differ from %s (-update-api to accept):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}
