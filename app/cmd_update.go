package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"rambar/i18n"
	"rambar/internal/run"
	upd "rambar/update"
)

func init() {
	register(&command{Name: "update", Summary: i18n.N("say whether a newer RAMBar is out; on a Mac, download and open it"),
		Doc: i18n.N("RAMBar.app from the release's disk image reads the signed appcast, shows the newest release's notes, " +
			"and (without --check) downloads its disk image to Downloads, checks its signature, Developer ID and " +
			"notarization, and opens it: quit RAMBar, then drag the new one onto Applications. It never replaces " +
			"the running app. A copy installed with Homebrew, or on Linux, is told how it was installed and how to update it."),
		Flags:   []flagSpec{flagBool("check", i18n.N("only say whether a newer release is out; download nothing"))},
		Example: "update --check\nupdate", Order: 89, Run: runUpdate})
}

// updates is the update use case for this copy: the built-in key and feed
// (RAMBAR_UPDATE_FEED may point at another https feed, still signed with
// that key), Downloads in the home folder, and on a Mac codesign and spctl.
func (a *App) updates() *upd.Service {
	if a.NewUpdates != nil {
		return a.NewUpdates()
	}
	s := upd.New(version, upd.ThisInstall(runtime.GOOS), filepath.Join(a.home(), "Downloads"))
	if f := a.Getenv("RAMBAR_UPDATE_FEED"); f != "" {
		s.Feed = f
	}
	if runtime.GOOS == "darwin" {
		s.Verify = upd.MacVerify(run.System())
	}
	s.Open = openFolder
	return s
}

func runUpdate(ctx context.Context, a *App, in *input) error {
	s := a.updates()
	o, err := s.Check(ctx)
	if err != nil {
		return err
	}
	say := a.say()
	if say.english() {
		fmt.Fprintln(a.Stdout, o.Line())
	} else {
		fmt.Fprintln(a.Stdout, o.Say(say.p))
	}
	if o.Status != upd.Available {
		return nil
	}
	if notes := strings.TrimSpace(o.Release.Notes); notes != "" {
		fmt.Fprintf(a.Stdout, "\n%s\n", say.T("What's new in %s:", o.Release.Version))
		for _, l := range strings.Split(notes, "\n") {
			fmt.Fprintf(a.Stdout, "  %s\n", l)
		}
		fmt.Fprintln(a.Stdout)
	}
	if *in.Bool("check") {
		fmt.Fprintln(a.Stdout, say.T("rambar update (or Check for Updates… in the menu) downloads it."))
		return nil
	}
	show, done := a.progressLine(contentsEvery)
	path, err := s.Download(ctx, o.Release, func(n, total int64) {
		if total > 0 {
			show(say.T("Downloading RAMBar %s… %d%%", o.Release.Version, int(n*100/total)))
		}
	})
	done()
	if err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, say.T("Saved %s: its signature, Developer ID and notarization checked.", path))
	if s.Open != nil {
		if err := s.Open(path); err != nil {
			fmt.Fprintln(a.Stderr, say.T("rambar: could not open it: %v", err))
		}
	}
	fmt.Fprintln(a.Stdout, say.T("To install it: quit RAMBar, then drag RAMBar from the disk image onto Applications, replacing this copy."))
	return nil
}

// updateStamp is the file whose time is the daily check's last.
func (a *App) updateStamp() string {
	if a.Paths.Data == "" {
		return ""
	}
	return filepath.Join(a.Paths.Data, "update-check")
}
