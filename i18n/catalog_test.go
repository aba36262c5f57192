package i18n

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/text/language"
)

// TestEveryMessageHasEveryLanguage: each message of en.json is in every
// other locale file (and nothing else is), and each translation has the
// format verbs of its source: the same ones, in any order (a language may
// reorder them with %[2]s). A plural form may leave out the count it is
// chosen by ("one": "the RAM disk").
func TestEveryMessageHasEveryLanguage(t *testing.T) {
	en, err := loadLocale("en")
	if err != nil {
		t.Fatal(err)
	}
	for _, tag := range Languages[1:] {
		l, err := loadLocale(fileName(tag))
		if err != nil {
			t.Fatal(err)
		}
		for id, src := range en {
			tr, ok := l[id]
			if !ok {
				t.Errorf("%s: %q has no translation", tag, id)
				continue
			}
			want := sortedVerbs(id)
			if src.Plural != nil && (tr.Plural == nil || tr.Arg != src.Arg) {
				t.Errorf("%s: %q counts (argument %d): its translation needs plural forms of that argument", tag, id, src.Arg)
			}
			for _, form := range tr.forms() {
				got := sortedVerbs(form)
				if tr.Plural != nil && !slices.Equal(got, want) {
					got = append(got, "%d")
					slices.Sort(got)
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s: %q: %q has verbs %v, want %v", tag, id, form, sortedVerbs(form), want)
				}
				if strings.TrimSpace(form) == "" {
					t.Errorf("%s: %q: empty translation", tag, id)
				}
			}
		}
		for id := range l {
			if _, ok := en[id]; !ok {
				t.Errorf("%s: %q is not in en.json (a message the code no longer asks for?)", tag, id)
			}
		}
	}
	for id, e := range en {
		if v := Verbs(id); e.Plural != nil && !strings.Contains(id, "%[") && (e.Arg > len(v) || v[e.Arg-1] != "%d") {
			t.Errorf("en: %q counts by argument %d, which is not a %%d", id, e.Arg)
		}
		for _, f := range e.forms() {
			if f != "" && !slices.Equal(sortedVerbs(f), sortedVerbs(id)) && !(e.Plural != nil && slices.Equal(append(sortedVerbs(f), "%d"), sortedVerbs(id))) {
				t.Errorf("en: %q: form %q changes the verbs", id, f)
			}
		}
	}
}

func sortedVerbs(s string) []string {
	v := Verbs(s)
	slices.Sort(v)
	return v
}

func TestPluralsAndNumbersByLocale(t *testing.T) {
	for _, c := range []struct {
		tag  language.Tag
		got  func(p *Printer) string
		want string
	}{
		{language.English, func(p *Printer) string { return p.T("%d changes", 1) }, "1 change"},
		{language.English, func(p *Printer) string { return p.T("%d changes", 2) }, "2 changes"},
		{language.English, func(p *Printer) string { return p.T("%d changes", 1234) }, "1,234 changes"},
		{language.German, func(p *Printer) string { return p.T("%d changes", 1) }, "1 Änderung"},
		{language.German, func(p *Printer) string { return p.T("%d changes", 1234) }, "1.234 Änderungen"},
		{language.French, func(p *Printer) string { return p.T("%d changes", 0) }, "0 modification"},
		{language.Japanese, func(p *Printer) string { return p.T("%d changes", 1) }, "1 件の変更"},
		{language.English, func(p *Printer) string { return p.Size(short("1.5 GiB")) }, "1.5 GiB"},
		{language.German, func(p *Printer) string { return p.Size(short("1.5 GiB")) }, "1,5 GiB"},
		{language.French, func(p *Printer) string { return p.Size(short("1.5 GiB")) }, "1,5 GiB"},
		{language.Japanese, func(p *Printer) string { return p.Size(short("1.5 GiB")) }, "1.5 GiB"},
		{language.German, func(p *Printer) string { return p.T("Compressed %.1f×", 2.5) }, "Komprimiert 2,5×"},
		{language.German, func(p *Printer) string { return p.T("⚠ %s is %.0f%% full", "Work", 93.0) }, "⚠ Work ist zu 93 % voll"},
		{language.Japanese, func(p *Printer) string {
			return p.T("%.0f%% of %s used; writes will fail when it is full.", 93.0, "4 GiB")
		}, "4 GiB のうち 93% を使用中です。いっぱいになると書き込みに失敗します。"},
		{language.SimplifiedChinese, func(p *Printer) string { return p.T("⚠ %d conflicts in %s", 3, "/site") }, "⚠ /site 中有 3 处冲突"},
		{language.German, func(p *Printer) string { return p.T("• Saved %[1]s, %[2]d paths changed since", "vor 3 s", 1) }, "• Gesichert vor 3 s, seitdem 1 Pfad geändert"},
		{language.English, func(p *Printer) string { return p.T("%s: %d conflicts in %s", "Site", 1, "/site") }, "Site: 1 conflict in /site"},
		{language.French, func(p *Printer) string { return p.T("%s: %d conflicts in %s", "Site", 2, "/site") }, "Site : 2 conflits dans /site"},
	} {
		if got := c.got(For(c.tag)); got != c.want {
			t.Errorf("%s: %q, want %q", c.tag, got, c.want)
		}
	}
	var nilPrinter *Printer
	if got := nilPrinter.T("%d days ago", 1); got != "1 day ago" {
		t.Errorf("a nil Printer says %q", got)
	}
}

type short string

func (s short) Short() string { return string(s) }

func TestPseudoLocaleIsAccentedAndLonger(t *testing.T) {
	p := For(Pseudo)
	en, _ := loadLocale("en")
	for id, e := range en {
		if e.Plural == nil && e.Text == "" {
			e.Text = id
		}
		for _, src := range e.forms() {
			got := pseudoText(src)
			if !strings.HasPrefix(got, PseudoOpen) || !strings.HasSuffix(got, PseudoClose) {
				t.Errorf("%q: %q is not marked", id, got)
			}
			if utf8.RuneCountInString(got) < utf8.RuneCountInString(src)*14/10 {
				t.Errorf("%q: %q is not 40%% longer than %q", id, got, src)
			}
			if !slices.Equal(sortedVerbs(got), sortedVerbs(src)) {
				t.Errorf("%q: the pseudo text changed its verbs", id)
			}
		}
	}
	if got := p.T("Eject All"); got != pseudoText("Eject All") {
		t.Errorf("the pseudo-locale says %q", got)
	}
	if got := p.T("Reclaim %s", "2 GiB"); !strings.HasPrefix(got, "⟦Ŕéçĺáíɱ 2 GiB ·") {
		t.Errorf("%q", got)
	}
	if got := p.T("%d changes", 1); !strings.Contains(got, "1 çĥáñĝé") || strings.Contains(got, "çĥáñĝéš") {
		t.Errorf("pseudo plural: %q", got)
	}
}

func TestLocaleResolution(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	for _, c := range []struct {
		getenv func(string) string
		want   language.Tag
	}{
		{env(), language.English},
		{env("LANG", "de_DE.UTF-8"), language.German},
		{env("LANG", "de_DE.UTF-8", "LC_MESSAGES", "fr_FR.UTF-8"), language.French},
		{env("LANG", "de_DE.UTF-8", "LC_MESSAGES", "fr_FR.UTF-8", "LC_ALL", "es_ES.UTF-8"), language.Spanish},
		{env("LANG", "de_DE.UTF-8", "LC_ALL", "es_ES", "LANGUAGE", "ja_JP:de"), language.Japanese},
		{env("LANG", "de_DE.UTF-8", "LANGUAGE", "pt_BR:fr"), language.French}, // the first RAMBar speaks
		{env("LANG", "C", "LANGUAGE", "de"), language.English},                // gettext: C means untranslated
		{env("LC_ALL", "POSIX", "LANG", "de_DE"), language.English},
		{env("LANG", "zh_CN.UTF-8"), language.SimplifiedChinese},
		{env("LANG", "zh_SG"), language.SimplifiedChinese},
		{env("LANG", "de_AT.UTF-8@euro"), language.German},
		{env("LANG", "en_XA"), Pseudo},
		{env("LANGUAGE", "pseudo"), Pseudo},
		{env("LANG", "pt_BR.UTF-8"), language.English},
	} {
		prefs := FromEnv(c.getenv)
		if got := Match(prefs); got != c.want {
			t.Errorf("%q: %s, want %s", prefs, got, c.want)
		}
	}
	mac := "(\n    \"ja-JP\",\n    \"en-US\"\n)\n"
	if got := ParseAppleLanguages(mac); !slices.Equal(got, []string{"ja-JP", "en-US"}) {
		t.Errorf("%q", got)
	}
	if got := Match([]string{"zh-Hans-CN", "en"}); got != language.SimplifiedChinese {
		t.Errorf("zh-Hans-CN: %s", got)
	}
	if got := Match([]string{"pt-BR", "fr-CA"}); got != language.French {
		t.Errorf("pt-BR, fr-CA: %s", got)
	}
}
