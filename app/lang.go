package main

import (
	"context"
	"runtime"
	"time"

	"rambar/i18n"
	"rambar/internal/run"
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
	prefs = append(prefs, i18n.FromEnv(a.Getenv)...)
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
