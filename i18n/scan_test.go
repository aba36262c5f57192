package i18n

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// translatedDirs are the packages whose words go through the catalog.
var translatedDirs = []string{"../tray", "../app", "../update", "../darwin/cocoa", "../ramdisk"}

// translating are the functions and methods whose arguments (by index)
// are messages of the catalog: the first; for the rows of the CLI's info,
// the label and the text; for a plan's notes (ramdisk), the format.
var translating = map[string][]int{"T": {0}, "t": {0}, "N": {0}, "usagef": {0}, "msg": {0}, "field": {0, 1},
	"note": {1}, "newNote": {1}}

// errorDirs are the packages whose error sentences are translatable: only
// their calls of i18n.Errorf and i18n.New are scanned.
var errorDirs = []string{"../disks", "../keeper", "../snapshot", "../snapstore", "../linux", "../darwin", "../cache"}

// translatingErrors are i18n's functions whose first argument is an
// error's English format, the catalog's key.
var translatingErrors = map[string]bool{"Errorf": true, "New": true}

// scanCalls adds to out the messages af's calls ask for: every translating
// call's in a package of translatedDirs (all is true), and the formats of
// its translatable errors in any package.
func scanCalls(af *ast.File, fset *token.FileSet, eval func(ast.Expr) (string, bool), all bool, out map[string][]string) {
	ast.Inspect(af, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		name, pkg := "", ""
		switch f := call.Fun.(type) {
		case *ast.SelectorExpr:
			name = f.Sel.Name
			if id, ok := f.X.(*ast.Ident); ok {
				pkg = id.Name
			}
		case *ast.Ident:
			name = f.Name
		}
		var args []int
		switch {
		case pkg == "i18n" && translatingErrors[name]:
			args = []int{0}
		case all:
			args = translating[name]
		}
		for _, i := range args {
			if i >= len(call.Args) {
				continue
			}
			if s, ok := eval(call.Args[i]); ok {
				out[s] = append(out[s], fset.Position(call.Pos()).String())
			}
		}
		return true
	})
}

// codeMessages are the messages the code asks for: the first argument of
// every call of a method named T or t that is a string literal, a
// concatenation of literals, or a package constant made of them; the
// texts the code marks with i18n.N; and, in the CLI, the formats of its
// usage errors (usagef), of the texts it says later (msg) and of info's
// rows (field), which it translates when it prints them; and the formats
// of translatable errors (i18n.Errorf, i18n.New) in any package.
func codeMessages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, dir := range append(slices.Clone(translatedDirs), errorDirs...) {
		fset := token.NewFileSet()
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		var parsed []*ast.File
		consts := map[string]ast.Expr{}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			parsed = append(parsed, af)
			for _, d := range af.Decls {
				if g, ok := d.(*ast.GenDecl); ok && (g.Tok == token.CONST || g.Tok == token.VAR) {
					for _, sp := range g.Specs {
						vs := sp.(*ast.ValueSpec)
						for i, n := range vs.Names {
							if i < len(vs.Values) {
								consts[n.Name] = vs.Values[i]
							}
						}
					}
				}
			}
		}
		var eval func(e ast.Expr) (string, bool)
		eval = func(e ast.Expr) (string, bool) {
			switch x := e.(type) {
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					s, err := strconv.Unquote(x.Value)
					return s, err == nil
				}
			case *ast.BinaryExpr:
				if x.Op == token.ADD {
					a, ok1 := eval(x.X)
					b, ok2 := eval(x.Y)
					return a + b, ok1 && ok2
				}
			case *ast.Ident:
				if c, ok := consts[x.Name]; ok {
					return eval(c)
				}
			case *ast.ParenExpr:
				return eval(x.X)
			}
			return "", false
		}
		for _, af := range parsed {
			scanCalls(af, fset, eval, slices.Contains(translatedDirs, dir), out)
		}
	}
	return out
}

func TestEveryMessageOfTheCodeIsInTheCatalog(t *testing.T) {
	en, err := loadLocale("en")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for id, where := range codeMessages(t) {
		if _, ok := en[id]; !ok {
			missing = append(missing, id)
			t.Errorf("%s: %q is not in locales/en.json", where[0], id)
		}
	}
	if len(missing) > 0 && os.Getenv("I18N_MISSING") != "" {
		sort.Strings(missing)
		var b strings.Builder
		for _, m := range missing {
			b.WriteString(strconv.Quote(m) + ": \"\",\n")
		}
		os.WriteFile(os.Getenv("I18N_MISSING"), []byte(b.String()), 0o644)
	}
}
