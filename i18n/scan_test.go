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

// translatedDirs are the packages whose words go through the catalog:
// the front ends', and the domain packages' that word a disk's notes and
// a plan's (ramdisk.Said, ramdisk.Note), reports and verdicts.
var translatedDirs = []string{"../tray", "../app", "../update", "../darwin/cocoa", "../ramdisk", "../bench", "../selftest",
	"../keeper", "../disks", "../cache", "../linux", "../darwin", "../volicon"}

// translating are the functions and methods whose arguments (by index)
// are messages of the catalog: the first; for the rows of the CLI's info,
// the label and the text; for a plan's notes (ramdisk), the format; for
// bench's reasons, notes and labels, a leftover's advice (disks) and a
// self-test check's detail, the format; for a domain package's sentence
// (ramdisk.Sayf), its format, for one that counts (ramdisk.SayCount),
// its plural form, and for bench's joined, its separator.
var translating = map[string][]int{"T": {0}, "t": {0}, "N": {0}, "usagef": {0}, "msg": {0}, "field": {0, 1},
	"note": {1}, "newNote": {1}, "wordsOf": {0}, "Advised": {0}, "Passf": {1}, "Failf": {1}, "Skipf": {1}, "failData": {2}, "counted": {1},
	"Sayf": {0}, "SayCount": {2}, "joined": {1}}

// errorDirs are more packages whose error sentences are translatable:
// only their calls of i18n.Errorf and i18n.New are scanned.
var errorDirs = []string{"../snapshot", "../snapstore", "../mirrorfolder"}

// translatingErrors are i18n's functions whose first argument is an
// error's English format, the catalog's key.
var translatingErrors = map[string]bool{"Errorf": true, "New": true}

// codeMessages are the messages the code asks for: the first argument of
// every call of a method named T or t that is a string literal, a
// concatenation of literals, or a package constant made of them; the
// texts the code marks with i18n.N; and, in the CLI, the formats of its
// usage errors (usagef), of the texts it says later (msg) and of info's
// rows (field), which it translates when it prints them; and the formats
// of translatable errors (i18n.Errorf, i18n.New).
func codeMessages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	scanCalls(t, func(name string, call *ast.CallExpr, eval func(ast.Expr) (string, bool), where string) {
		args := translating[name]
		if translatingErrors[name] && isI18n(call) {
			args = []int{0}
		}
		for _, i := range args {
			if i >= len(call.Args) {
				continue
			}
			if s, ok := eval(call.Args[i]); ok {
				out[s] = append(out[s], where)
			}
		}
	})
	return out
}

// isI18n reports whether call is of a function of package i18n.
func isI18n(call *ast.CallExpr) bool {
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == "i18n"
}

// scanCalls calls found with every call in translatedDirs' code (not its
// tests), and with the translatable errors' calls in errorDirs': the name
// of the function or method called, the call, what evaluates its literal
// arguments (a string literal, a concatenation of them, a package constant
// made of them), and where it is.
func scanCalls(t *testing.T, found func(name string, call *ast.CallExpr, eval func(ast.Expr) (string, bool), where string)) {
	t.Helper()
	for _, dir := range append(slices.Clone(translatedDirs), errorDirs...) {
		errorsOnly := !slices.Contains(translatedDirs, dir)
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
			ast.Inspect(af, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				name := ""
				switch f := call.Fun.(type) {
				case *ast.SelectorExpr:
					name = f.Sel.Name
				case *ast.Ident:
					name = f.Name
				}
				if !errorsOnly || translatingErrors[name] && isI18n(call) {
					found(name, call, eval, fset.Position(call.Pos()).String())
				}
				return true
			})
		}
	}
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

// TestCountingSentencesHaveTheirEnglishForms: a domain package's sentence
// that counts (ramdisk.SayCount) says its English itself, singular and
// plural; en.json's forms of it are those two, so that the catalog's
// English and the domain's are one text.
func TestCountingSentencesHaveTheirEnglishForms(t *testing.T) {
	en, err := loadLocale("en")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	scanCalls(t, func(name string, call *ast.CallExpr, eval func(ast.Expr) (string, bool), where string) {
		if name != "SayCount" || len(call.Args) < 3 {
			return
		}
		one, ok1 := eval(call.Args[1])
		other, ok2 := eval(call.Args[2])
		if !ok1 || !ok2 {
			t.Errorf("%s: SayCount's forms are not literals", where)
			return
		}
		n++
		e, ok := en[other]
		switch {
		case !ok:
			return // TestEveryMessageOfTheCodeIsInTheCatalog says so
		case e.Plural == nil:
			t.Errorf("%s: %q counts, but en.json has no plural forms for it", where, other)
		case e.Plural["one"] != one || e.Plural["other"] != other:
			t.Errorf("%s: en.json's forms of %q are %q, want %q and %q", where, other, e.Plural, one, other)
		}
	})
	if n == 0 {
		t.Error("no SayCount found")
	}
}
