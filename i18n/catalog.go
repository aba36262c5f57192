package i18n

import (
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/feature/plural"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

//go:embed locales/*.json
var localeFiles embed.FS

// Pseudo is the pseudo-locale: every English message accented and 40%
// longer, between brackets, so a test or a screenshot shows text that did
// not come through the catalog, or that a layout cut.
var Pseudo = language.MustParse("en-XA")

// Languages are the languages RAMBar speaks, English (the source) first.
var Languages = []language.Tag{language.English, language.German, language.Spanish, language.French, language.Japanese,
	language.SimplifiedChinese}

// entry is one message of a locale file: a translation, or plural forms.
type entry struct {
	Text   string
	Arg    int               // the argument (1-based) whose number picks the form
	Plural map[string]string // CLDR category ("one", "few", "other", "=0") → text
}

func (e *entry) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &e.Text)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	e.Arg, e.Plural = 1, map[string]string{}
	for k, v := range m {
		if k == "arg" {
			if err := json.Unmarshal(v, &e.Arg); err != nil {
				return fmt.Errorf("arg: %v", err)
			}
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return fmt.Errorf("plural form %q: %v", k, err)
		}
		e.Plural[k] = s
	}
	if e.Plural["other"] == "" {
		return fmt.Errorf("plural forms without \"other\"")
	}
	return nil
}

// forms are an entry's texts: the translation, or each plural form.
func (e entry) forms() []string {
	if e.Plural == nil {
		return []string{e.Text}
	}
	var out []string
	for _, k := range sortedKeys(e.Plural) {
		out = append(out, e.Plural[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// locale is one language's messages, by their English text.
type locale map[string]entry

// loadLocale reads locales/NAME.json.
func loadLocale(name string) (locale, error) {
	b, err := localeFiles.ReadFile(path.Join("locales", name+".json"))
	if err != nil {
		return nil, err
	}
	var l locale
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("locales/%s.json: %v", name, err)
	}
	return l, nil
}

// fileName is a language's file in locales/: its BCP 47 tag.
func fileName(t language.Tag) string { return t.String() }

// catalogOf is the catalog t's Printer reads: t's messages and, as the
// fallback, English's (the pseudo-locale's made from English when t is
// it). Only those: reading and setting every language's messages cost a
// CLI in English some 30 ms at each start, before its first word.
func catalogOf(t language.Tag) (*catalog.Builder, error) {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	langs := []language.Tag{language.English}
	if t != language.English && slices.Contains(Languages, t) {
		langs = append(langs, t)
	}
	for _, lt := range langs {
		l, err := loadLocale(fileName(lt))
		if err != nil {
			return nil, err
		}
		for id, e := range l {
			if lt == language.English && e.Plural == nil && e.Text == "" {
				e.Text = id // the source says it as it is
			}
			if err := set(b, lt, id, e); err != nil {
				return nil, fmt.Errorf("%s: %q: %v", lt, id, err)
			}
			if lt == language.English && t == Pseudo {
				if err := set(b, Pseudo, id, pseudoEntry(e)); err != nil {
					return nil, fmt.Errorf("pseudo: %q: %v", id, err)
				}
			}
		}
	}
	return b, nil
}

func set(b *catalog.Builder, t language.Tag, id string, e entry) error {
	if e.Plural == nil {
		return b.SetString(t, id, wAsV(e.Text))
	}
	var cases []any
	for _, k := range sortedKeys(e.Plural) {
		cases = append(cases, k, wAsV(e.Plural[k]))
	}
	return b.Set(t, id, plural.Selectf(e.Arg, "%d", cases...))
}

// N marks a text the code translates later (it passes through a variable
// to T): the catalog's tests find it, as gotext finds what it extracts.
func N(s string) string { return s }

// Printer says messages in one language. Its catalog is built at its
// first message, not when it is made: a CLI in English resolves its
// Printer and then writes with fmt, so it never builds one.
type Printer struct {
	Tag  language.Tag
	once sync.Once
	p    *message.Printer
	dec  string // the decimal separator
}

var (
	printersMu sync.Mutex
	printers   = map[language.Tag]*Printer{}
)

// For is the Printer of a language RAMBar speaks (Match finds it).
func For(t language.Tag) *Printer {
	printersMu.Lock()
	defer printersMu.Unlock()
	if p, ok := printers[t]; ok {
		return p
	}
	p := &Printer{Tag: t}
	printers[t] = p
	return p
}

// printer is p's message printer, its catalog built at the first call.
func (p *Printer) printer() *message.Printer {
	p.once.Do(func() {
		b, err := catalogOf(p.Tag)
		if err != nil {
			panic("i18n: " + err.Error()) // the tests load every file
		}
		p.p = message.NewPrinter(p.Tag, message.Catalog(b))
		p.dec = "."
		if s := p.p.Sprintf("%.1f", 1.5); len(s) > 1 && strings.HasPrefix(s, "1") {
			p.dec = strings.TrimSuffix(strings.TrimPrefix(s, "1"), "5")
		}
	})
	return p.p
}

// English is the source language's Printer.
func English() *Printer { return For(language.English) }

// T says a message: format is the English text (the catalog's key) and
// args its arguments, with numbers written as the language writes them
// (%d of 1234 is "1.234" in German), and an error of ours among them
// said in it too (Err). A nil Printer speaks English.
func (p *Printer) T(format string, args ...any) string {
	if p == nil {
		p = English()
	}
	return p.printer().Sprintf(format, p.errorArgs(args)...)
}

// Size writes a size as the language writes numbers: "1,5 GiB" in German
// for ramdisk.Size.Short's "1.5 GiB". The units are the same everywhere.
func (p *Printer) Size(z interface{ Short() string }) string {
	return p.Number(z.Short())
}

// Number writes the decimal point of a figure made in English ("1.5 GiB",
// "2.5×") as the language does.
func (p *Printer) Number(s string) string {
	if p == nil || p.Tag == language.English { // "." without building a catalog
		return s
	}
	if p.printer(); p.dec == "." {
		return s
	}
	b := []byte(s)
	var out strings.Builder
	for i, c := range b {
		if c == '.' && i > 0 && i+1 < len(b) && isDigit(b[i-1]) && isDigit(b[i+1]) {
			out.WriteString(p.dec)
			continue
		}
		out.WriteByte(c)
	}
	return out.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Lookup is the catalog's text of a message (not a counting one) in a
// language, and whether it has one: for files that are not printed by
// the program (InfoPlist.strings, the desktop entry), made from the catalog.
func Lookup(t language.Tag, id string) (string, bool) {
	l, err := loadLocale(fileName(t))
	if err != nil {
		return "", false
	}
	e, ok := l[id]
	if !ok || e.Plural != nil {
		return "", false
	}
	if e.Text == "" && t == language.English {
		return id, true
	}
	return e.Text, e.Text != ""
}

// Lproj is a language's folder in a macOS bundle (de.lproj, zh-Hans.lproj)
// without its extension: its BCP 47 tag, as CFBundleLocalizations names it.
func Lproj(t language.Tag) string { return t.String() }

// DesktopLocale is a language's key suffix in a desktop entry (Name[de],
// Comment[zh_CN]): the POSIX locale the desktop matches.
func DesktopLocale(t language.Tag) string {
	if t == language.SimplifiedChinese {
		return "zh_CN"
	}
	return t.String()
}

var (
	sourceOnce sync.Once
	source     locale
)

// SourceFormat is the English format of message id for args, for text
// that must read in English exactly as fmt writes it (the CLI's, which
// scripts and tests read: T would group digits, 1,234): a counting
// message's form for its count ("one" for 1, else "other"), or id itself.
func SourceFormat(id string, args ...any) string {
	sourceOnce.Do(func() { source, _ = loadLocale("en") })
	e, ok := source[id]
	if !ok || e.Plural == nil || e.Arg < 1 || e.Arg > len(args) {
		return id
	}
	form := e.Plural["other"]
	if isOne(args[e.Arg-1]) && e.Plural["one"] != "" {
		form = e.Plural["one"]
	}
	return form
}

func isOne(n any) bool {
	switch n := n.(type) {
	case int:
		return n == 1
	case int64:
		return n == 1
	case uint64:
		return n == 1
	}
	return false
}
