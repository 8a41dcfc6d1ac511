// Package apitest lists the exported names of a package as its pinned API
// files (sdk/testdata/api.txt, sdk/sdktest/testdata/api.txt) hold them,
// and checks them against the file: for tests only.
package apitest

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

var update = flag.Bool("update-api", false, "rewrite testdata/api.txt from the package's exported names")

// module is this module's path: an alias of one of its types counts that
// type's methods as the aliasing package's own.
const module = "github.com/regretbench/regretbench/"

// Check compares the exported names of the package in dir (import path
// path) with golden, one "kind name" a line, sorted; with -update-api it
// rewrites golden first. The methods of the internal types it aliases (as
// sdk.Param is internal/params.Param) count as its own: a method added
// there is a change of its API too.
func Check(t *testing.T, dir, path, golden string) {
	t.Helper()
	got := Names(t, dir, path)
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("package %s's exported names differ from %s (-update-api to accept):\ngot:\n%s\nwant:\n%s", path, golden, got, want)
	}
}

// Names lists the exported names of the package in dir, as Check does.
func Names(t *testing.T, dir, path string) string {
	t.Helper()
	fset := token.NewFileSet()
	files := parsePackage(t, fset, dir)
	pkg, err := doc.NewFromFiles(fset, files, path)
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
		funcs(ty.Name+".", aliasedMethods(t, fset, dir, files, ty))
	}
	slices.Sort(names)
	return strings.Join(names, "\n") + "\n"
}

// aliasedMethods returns the methods of the type that ty, if it is an
// alias of a type of another package of this module, stands for.
func aliasedMethods(t *testing.T, fset *token.FileSet, dir string, files []*ast.File, ty *doc.Type) []*doc.Func {
	t.Helper()
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
	root, err := moduleRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	pfiles := parsePackage(t, fset, filepath.Join(root, strings.TrimPrefix(path, module)))
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

// moduleRoot returns the directory of the go.mod above dir.
func moduleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", os.ErrNotExist
		}
		d = up
	}
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
