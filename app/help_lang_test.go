package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rambar/i18n"
	"rambar/ramdisk"
)

// cliRunLang is cliRun with LANG set to lang.
func cliRunLang(t *testing.T, eng ramdisk.Engine, home, lang string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &App{
		Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return eng, nil },
		Paths:     ramdisk.Paths{Settings: filepath.Join(home, "settings.plist"), Data: filepath.Join(home, "data")},
		Getenv:    func(k string) string { return map[string]string{"LANG": lang}[k] },
		Now:       func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
	}
	code := a.Main(args)
	return out.String(), errb.String(), code
}

// TestHelpInOtherLanguages: with LANG=de_DE.UTF-8 create's page is the
// German golden one; in German and Japanese every page fits in 80 columns,
// keeps its command lines, flag names and examples as they are, and says
// its headings in the language.
func TestHelpInOtherLanguages(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	out, errOut, code := cliRunLang(t, eng, home, "de_DE.UTF-8", "create", "--help")
	if code != exitOK || errOut != "" {
		t.Fatalf("create --help in German: exit %d, stderr %q", code, errOut)
	}
	golden(t, "help-create.de", "$ LANG=de_DE.UTF-8 rambar create --help\n"+out, "\x00")
	for _, c := range []struct{ lang, usage, flags, example string }{
		{"de_DE.UTF-8", "Aufruf: rambar ", "Optionen:", "Beispiel:"},
		{"ja_JP.UTF-8", "使い方: rambar ", "フラグ:", "例:"},
		{"fr_FR.UTF-8", "usage : rambar ", "options :", "exemple :"},
	} {
		for _, cmd := range everyCommand() {
			path := strings.Fields(cmd.path())
			out, errOut, code := cliRunLang(t, eng, home, c.lang, append(path, "--help")...)
			if code != exitOK || errOut != "" || !strings.HasPrefix(out, c.usage+cmd.synopsis()+"\n") {
				t.Errorf("%s: %s --help: exit %d, stderr %q:\n%s", c.lang, cmd.path(), code, errOut, out)
			}
			if len(cmd.Subs) == 0 && !strings.Contains(out, "\n"+c.flags+"\n") || !strings.Contains(out, "\n"+c.example+"\n") {
				t.Errorf("%s: %s --help lacks its headings:\n%s", c.lang, cmd.path(), out)
			}
			for _, f := range cmd.flags() {
				if !strings.Contains(out, "  "+f.label()) {
					t.Errorf("%s: %s --help lacks --%s", c.lang, cmd.path(), f.Name)
				}
			}
			for _, l := range strings.Split(cmd.Example, "\n") {
				if !strings.Contains(out, "  rambar "+l+"\n") {
					t.Errorf("%s: %s --help lacks its example %q", c.lang, cmd.path(), l)
				}
			}
			checkWidth(t, c.lang+" "+cmd.path(), out)
		}
		out, _, _ := cliRunLang(t, eng, home, c.lang, "help")
		checkWidth(t, c.lang+" help", out)
	}
	ja, _, _ := cliRunLang(t, eng, home, "ja_JP.UTF-8", "create", "--help")
	if !strings.Contains(ja, "RAM ディスクを作成") || !strings.Contains(ja, "\n引数:\n") {
		t.Errorf("create --help in Japanese:\n%s", ja)
	}
	for _, l := range strings.Split(ja, "\n") {
		if r := []rune(strings.TrimSpace(l)); len(r) > 0 && strings.ContainsRune(noLineStart, r[0]) {
			t.Errorf("a Japanese line starts with %q: %q", r[0], l)
		}
	}
}

// asciiWord is a lowercase English word: text that did not go through the
// catalog shows as one in the pseudo-locale, which accents every letter.
var asciiWord = regexp.MustCompile(`[a-z]{2,}`)

// TestHelpThroughTheCatalog: in the pseudo-locale (accented, longer) every
// help page and the top-level help have no English word left but command
// and flag names, placeholders, example command lines and words that are
// not translated (bench's row names): every text went through the catalog.
func TestHelpThroughTheCatalog(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	kept := map[string]bool{"rambar": true}
	keep := func(s string) {
		for _, w := range asciiWord.FindAllString(s, -1) {
			kept[w] = true
		}
	}
	for _, c := range everyCommand() {
		keep(c.synopsis())
		keep(strings.Join(c.Aliases, " "))
		for _, f := range c.flags() {
			keep(f.label() + " " + f.DocArg)
		}
	}
	pages := map[string][]string{"help": {"help"}}
	for _, c := range everyCommand() {
		pages[c.path()] = append(strings.Fields(c.path()), "--help")
	}
	for name, args := range pages {
		out, errOut, code := cliRunLang(t, eng, home, "en_XA", args...)
		if code != exitOK || errOut != "" || !strings.Contains(out, i18n.PseudoOpen) {
			t.Errorf("%s in the pseudo-locale: exit %d, stderr %q:\n%s", name, code, errOut, out)
		}
		checkWidth(t, "pseudo "+name, out)
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "  rambar ") {
				continue // an example
			}
			for _, w := range asciiWord.FindAllString(l, -1) {
				if !kept[w] {
					t.Errorf("%s: %q did not come through the catalog: %q", name, w, l)
					break
				}
			}
		}
	}
	// A usage error is said whole in the language too.
	_, errOut, _ := cliRunLang(t, eng, home, "en_XA", "create", "X")
	if !strings.HasPrefix(errOut, "rambar: "+i18n.PseudoOpen) && !strings.Contains(errOut, "⟦ŕáɱƀáŕ: ⟦ûšáĝé") {
		t.Errorf("a usage error in the pseudo-locale: %q", errOut)
	}
}

// TestErrorsInTheUsersLanguage: usage errors, refused combinations and the
// errors RAMBar words itself are said whole in the user's language; the
// exit code is the same, and --json's error document stays English.
func TestErrorsInTheUsersLanguage(t *testing.T) {
	eng, home := helpEngine(t), t.TempDir()
	for _, c := range []struct {
		lang   string
		args   []string
		stderr string // its start
		code   int
	}{
		{"de_DE.UTF-8", []string{"craete", "X", "1G"}, "rambar: unbekannter Befehl \"craete\"; meintest du create?\n", exitUsage},
		{"de_DE.UTF-8", []string{"create", "X"}, "rambar: Aufruf: rambar create NAME SIZE [flags] (SIZE fehlt); siehe 'rambar create --help'\n", exitUsage},
		{"de_DE.UTF-8", []string{"info", "Nope"}, "rambar: \"Nope\": keine solche RAM-Disk (keine ist eingehängt)\n", exitNotFound},
		{"de_DE.UTF-8", []string{"create", "a/b", "1G"}, "rambar: ungültiger Name \"a/b\": darf weder '/' noch ':' enthalten\n", exitUsage},
		{"de_DE.UTF-8", []string{"create", "X", "1G", "--keep", "--mirror", home}, "rambar: --keep und --mirror schließen einander aus: ", exitUsage},
		{"es_ES.UTF-8", []string{"create", "X", "1G", "--forse"}, "rambar: create: opción desconocida --forse; ¿querías decir --force?\n", exitUsage},
		{"ja_JP.UTF-8", []string{"create", "X"}, "rambar: 使い方: rambar create NAME SIZE [flags]（SIZE がありません）。", exitUsage},
		{"zh_CN.UTF-8", []string{"info", "Nope"}, "rambar: \"Nope\"：没有这个 RAM 磁盘（没有装载任何磁盘）\n", exitNotFound},
		{"fr_FR.UTF-8", []string{"create", "X", "1T"}, "rambar : trop grand pour la mémoire de cette machine : 1 TiB laisserait les disques RAM grandir jusqu’à 1 TiB de mémoire", exitRefused},
		{"", []string{"info", "Nope"}, "rambar: \"Nope\": no such RAM disk", exitNotFound},
	} {
		_, errOut, code := cliRunLang(t, eng, home, c.lang, c.args...)
		if code != c.code || !strings.HasPrefix(errOut, c.stderr) {
			t.Errorf("LANG=%s rambar %s: exit %d, stderr %q; want exit %d, %q…", c.lang, strings.Join(c.args, " "), code, errOut, c.code, c.stderr)
		}
	}
	out, _, code := cliRunLang(t, eng, home, "de_DE.UTF-8", "info", "Nope", "--json")
	if code != exitNotFound || !strings.Contains(out, `"error": "\"Nope\": no such RAM disk`) {
		t.Errorf("info --json in German: exit %d, %s", code, out)
	}
}
