package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Limits of the code's shape (DESIGN.md, the helpers' rules): no non-test
// Go file over maxFileLines lines, no function over maxFuncLines.
const (
	maxFileLines = 450
	maxFuncLines = 90
)

// overLimit are functions tolerated over maxFuncLines (none: the one
// applier took apart the last two); an entry here never makes the test
// fail.
var overLimit = map[string]bool{}

// TestStructure keeps every file of the repository under maxFileLines
// lines and every function under maxFuncLines: a file or function that
// grows past them fails here, named, so it is split when it is written.
func TestStructure(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		if n := fset.File(f.Pos()).LineCount(); n > maxFileLines {
			t.Errorf("%s: %d lines, over %d: split it", rel, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxFuncLines && !overLimit[rel+" "+fn.Name.Name] {
				t.Errorf("%s: %s is %d lines, over %d: split it", rel, fn.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
