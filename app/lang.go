package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"golang.org/x/text/language"

	"rambar/i18n"
	"rambar/internal/run"
	"rambar/ramdisk"
	"rambar/tray"
)

// lang is the Printer of the user's language for the menu and its windows:
// on macOS the user's preferred languages (NSLocale preferredLanguages,
// which holds a per-app choice made in System Settings › General ›
// Language & Region › Applications; else AppleLanguages as `defaults`
// reads it), elsewhere LANGUAGE, LC_ALL, LC_MESSAGES and LANG.
func (a *App) lang() *i18n.Printer {
	a.langOnce.Do(func() { a.langP = a.resolveLang() })
	return a.langP
}

func (a *App) resolveLang() *i18n.Printer {
	var prefs []string
	if runtime.GOOS == "darwin" {
		prefs = preferredLanguages()
		if len(prefs) == 0 {
			prefs = appleLanguages(run.System())
		}
	}
	if a.Getenv != nil { // an App made without one (a test's) speaks English
		prefs = append(prefs, i18n.FromEnv(a.Getenv)...)
	}
	return i18n.For(i18n.Match(prefs))
}

// appleLanguages reads AppleLanguages with `defaults`: RAMBar's own domain
// first (the per-app language), then the user's global one.
func appleLanguages(r run.Runner) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, domain := range []string{"app.rambar.RAMBar", "-g"} {
		out, err := run.Output(ctx, r, "defaults", "read", domain, "AppleLanguages")
		if langs := i18n.ParseAppleLanguages(string(out)); err == nil && len(langs) > 0 {
			return langs
		}
	}
	return nil
}

// speech is how the CLI says things: its help, messages and errors in the
// user's language through the catalog, and in English the English text
// itself through fmt, so English output stays byte for byte what scripts
// and tests read (the catalog's printer would group digits: 1,234).
type speech struct{ p *i18n.Printer }

// say is the CLI's speech in the user's language.
func (a *App) say() speech { return speech{a.lang()} }

// english is speech in English, for what is never translated.
func english() speech { return speech{i18n.English()} }

// T says a message: format is its English text, the catalog's key.
func (s speech) T(format string, args ...any) string {
	if s.english() {
		return fmt.Sprintf(i18n.SourceFormat(format, args...), args...)
	}
	return s.p.T(format, args...)
}

// Text says a message without arguments that comes through a variable
// (marked with i18n.N where it is written): help's texts from the table.
func (s speech) Text(id string) string {
	if s.english() {
		return strings.ReplaceAll(id, "%%", "%")
	}
	return s.p.T(id)
}

// Size writes a size as the language writes numbers ("1,5 GiB").
func (s speech) Size(z interface{ Short() string }) string { return s.Number(z.Short()) }

// Number writes the decimal point of a figure made in English as the
// language does.
func (s speech) Number(n string) string {
	if s.english() {
		return n
	}
	return s.p.Number(n)
}

func (s speech) english() bool { return s.p == nil || s.p.Tag == language.English }

// speaker is s for a domain package that words a report itself (bench,
// selftest): nil in English, which the package then writes as it always
// has, its figures as its own tables write them.
func (s speech) speaker() i18n.Speaker {
	if s.english() {
		return nil
	}
	return s.p
}

// cjk tells a language that writes without spaces between words (Chinese,
// Japanese): its sentences join without one, and end with 。.
func (s speech) cjk() bool {
	if s.p == nil {
		return false
	}
	base, _ := s.p.Tag.Base()
	return base.String() == "ja" || base.String() == "zh"
}

// said is a domain package's sentence (a disk's note, what is known of a
// disk's maker) in s's language, as the menu says it: in English its
// English text.
func (s speech) said(x ramdisk.Said) string {
	if s.english() {
		return x.Text
	}
	return tray.Say(s.p, x)
}

// allocation is how a disk takes memory, as list and info say it.
func (s speech) allocation(a ramdisk.Allocation) string {
	switch a {
	case ramdisk.AllocUpfront:
		return s.T("committed now")
	case ramdisk.AllocOnWrite:
		return s.T("grows as written")
	}
	return s.T("allocation unknown")
}

// ago says how long ago something was ("3 s ago"), as the menu says it.
func (s speech) ago(d time.Duration) string {
	if s.english() {
		return ramdisk.Ago(d)
	}
	return tray.Ago(s.p, d)
}

// listSep is what goes between the items of a list: ", " or "、".
func (s speech) listSep() string { return tray.ListSep(s.p) }

// clauseSep is what goes between the clauses of a sentence: "; " or "；".
func (s speech) clauseSep() string {
	if s.cjk() {
		return "；"
	}
	return "; "
}

// sentenceGap is what goes between two sentences.
func (s speech) sentenceGap() string {
	if s.cjk() {
		return ""
	}
	return " "
}
