package main

import (
	"context"
	"fmt"

	"rambar/i18n"
	"rambar/tray"
	upd "rambar/update"
)

// trayUpdates is Check for Updates… in the menu: the update use case that
// `rambar update` runs.
func (a *App) trayUpdates(s *upd.Service, lang *i18n.Printer) *tray.Updates {
	return &tray.Updates{
		Daily: s.Install.SelfUpdates(),
		Check: func(ctx context.Context) (tray.UpdateOffer, error) {
			o, err := s.Check(ctx)
			if err != nil {
				return tray.UpdateOffer{}, err
			}
			return tray.UpdateOffer{Available: o.Status == upd.Available, Version: o.Release.Version, Notes: o.Release.Notes,
				Line: o.Say(lang), Release: o.Release}, nil
		},
		Download: func(ctx context.Context, o tray.UpdateOffer, progress tray.ProgressFunc) (string, error) {
			r, ok := o.Release.(upd.Release)
			if !ok {
				return "", fmt.Errorf("update: no release to download")
			}
			path, err := s.Download(ctx, r, progress)
			if err != nil {
				return "", err
			}
			if s.Open != nil {
				if err := s.Open(path); err != nil {
					return path, fmt.Errorf("update: saved %s but could not open it: %v", path, err)
				}
			}
			return path, nil
		},
	}
}

// dailyUpdates is the once-a-day check while the menu-bar app runs, when
// the setting is on (a copy Homebrew updates never checks); a newer release
// is told in a notification, once.
func (a *App) dailyUpdates(s *upd.Service, lang *i18n.Printer, notify func(title, text string) error, logf func(string, ...any)) *upd.Daily {
	return &upd.Daily{S: s, Stamp: a.updateStamp(), Logf: logf,
		On: func() bool {
			st, err := a.Store()
			if err != nil {
				return false
			}
			set, err := st.Load()
			return err == nil && set.CheckForUpdatesDaily
		},
		Found: func(o upd.Outcome) {
			notify(lang.T("RAMBar %s is available", o.Release.Version), lang.T("Check for Updates… in RAMBar's menu shows what's new and downloads it."))
		}}
}
