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
// reviewed change of that file; the methods of the internal types it
// aliases (Param is internal/params.Param) count as its own: run `go test ./sdk -run AuthorAPI
// -update-api` to accept one.
func TestAuthorAPI(t *testing.T) {
	fset := token.NewFileSet()
	files := parsePackage(t, fset, ".")
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
		// An alias of an internal type (Param is internal/params.Param)
		// exports that type's methods under the alias's name: a method
		// added there is a change of this package's API too.
		funcs(ty.Name+".", aliasedMethods(t, fset, files, ty))
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

// aliasedMethods returns the methods of the type that ty, if it is an
// alias of a type of another package of this module, stands for.
func aliasedMethods(t *testing.T, fset *token.FileSet, files []*ast.File, ty *doc.Type) []*doc.Func {
	t.Helper()
	const module = "github.com/regretbench/regretbench/"
	var sel *ast.SelectorExpr
	for _, spec := range ty.Decl.Specs {
		if ts, ok := spec.(*ast.TypeSpec); ok && ts.Name.Name == ty.Name && ts.Assign.IsValid() {
			sel, _ = ts.Type.(*ast.SelectorExpr)
		}
	}
	if sel == nil {
		return nil
	}
	pkgName := sel.X.(*ast.Ident).Name
	var path string
	for _, f := range files {
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if (imp.Name != nil && imp.Name.Name == pkgName) || (imp.Name == nil && p[strings.LastIndex(p, "/")+1:] == pkgName) {
				path = p
			}
		}
	}
	if !strings.HasPrefix(path, module) {
		t.Fatalf("type %s aliases %s.%s of %q, outside this module: list its methods by hand", ty.Name, pkgName, sel.Sel.Name, path)
	}
	pfiles := parsePackage(t, fset, filepath.Join("..", strings.TrimPrefix(path, module)))
	pkg, err := doc.NewFromFiles(fset, pfiles, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, pty := range pkg.Types {
		if pty.Name == sel.Sel.Name {
			return pty.Methods
		}
	}
	t.Fatalf("type %s aliases %s.%s, which %s does not declare", ty.Name, pkgName, sel.Sel.Name, path)
	return nil
}

// parsePackage parses the non-test Go files of the package in dir.
func parsePackage(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
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
	return files
}
