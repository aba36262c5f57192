package i18n

import (
	"strings"

	"golang.org/x/text/language"
)

// FromEnv is the user's languages on Linux (and in a terminal anywhere), in
// the order gettext reads them: LANGUAGE (a colon-separated list), then
// LC_ALL, LC_MESSAGES and LANG (the first one set). As in gettext, a locale
// set to C or POSIX means untranslated messages, whatever LANGUAGE says.
func FromEnv(getenv func(string) string) []string {
	locale := ""
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			locale = v
			break
		}
	}
	if isC(locale) {
		return nil
	}
	var out []string
	for _, l := range strings.Split(getenv("LANGUAGE"), ":") {
		if l = strings.TrimSpace(l); l != "" && !isC(l) {
			out = append(out, l)
		}
	}
	if locale != "" {
		out = append(out, locale)
	}
	return out
}

func isC(l string) bool {
	base, _, _ := strings.Cut(l, ".")
	return base == "C" || base == "POSIX"
}

// ParseAppleLanguages reads `defaults read -g AppleLanguages`: a
// parenthesized list, one language a line, quoted or not.
func ParseAppleLanguages(out string) []string {
	var langs []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.Trim(strings.TrimSpace(l), `(),"`)
		if l != "" {
			langs = append(langs, l)
		}
	}
	return langs
}

// Tag reads one locale name: a POSIX one ("de_DE.UTF-8@euro", "zh_CN") or
// a BCP 47 tag ("zh-Hans-CN", "pt-BR"); "pseudo" is the pseudo-locale.
func Tag(name string) (language.Tag, bool) {
	name, _, _ = strings.Cut(name, "@")
	name, _, _ = strings.Cut(name, ".")
	name = strings.ReplaceAll(strings.TrimSpace(name), "_", "-")
	if name == "" || isC(name) {
		return language.Und, false
	}
	if strings.EqualFold(name, "pseudo") {
		return Pseudo, true
	}
	t, err := language.Parse(name)
	return t, err == nil
}

var matcher = language.NewMatcher(Languages)

// Match is the first of the user's languages RAMBar speaks (a region or
// script picks its language: de-AT is German, zh-CN Simplified Chinese), or
// English. The pseudo-locale is matched by name only (en-XA, en_XA, pseudo).
func Match(prefs []string) language.Tag {
	for _, p := range prefs {
		t, ok := Tag(p)
		if !ok {
			continue
		}
		if t == Pseudo {
			return Pseudo
		}
		_, i, conf := matcher.Match(t)
		if conf >= language.High {
			return Languages[i]
		}
	}
	return language.English
}
