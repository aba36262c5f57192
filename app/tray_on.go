package main

import (
	"context"
	"fmt"
	"sync"

	"rambar/darwin/cocoa"
	"rambar/disks"
	"rambar/i18n"
	"rambar/tray"
)

// runTray starts the menu-bar app and returns when the user quits. A second
// copy exits quietly; auto-mount presets are mounted (contents restored) once
// the menu is up, so a slow restore never delays the icon.
//
// Nothing is saved or written back unless the menu came up: autosave, the
// save before sleep and the save when the session ends belong to a session
// that started. A menu bar that cannot start (no desktop, no system tray)
// says why and has touched no disk; one that fails after it started says
// why first, then saves.
func runTray(ctx context.Context, a *App) error { return a.trayRun(ctx, nil) }

// trayHooks let the self-test run the real menu bar: ready is told when the
// menu is up (instead of mounting the presets), with the tray's Deps and
// the session guard (nil without a data folder); closing stop ends it.
type trayHooks struct {
	ready func(d *tray.Deps, g *cocoa.Guard)
	stop  <-chan struct{}
}

// trayRun is runTray, with the self-test's hooks when h is set.
func (a *App) trayRun(ctx context.Context, h *trayHooks) error {
	if err := a.canRunMenuBar(); err != nil {
		return err
	}
	release, ok, err := a.onlyInstance()
	if !ok {
		return err
	}
	defer release()
	d, err := a.trayDeps()
	if err != nil {
		return err
	}
	a.natives(&d)
	a.prepareNatives()
	menu, _ := d.Disks.(*disks.Menu)
	var s session
	var guard *cocoa.Guard
	if c := a.newContents(menu); c != nil {
		notes := a.notices()
		d.Status = &tray.StatusLine{}
		g := a.sessionGuard(c, notes, d.Status)
		guard = g
		s.begin = func() func() { return a.keep(ctx, c, notes, g) }
	}
	if h != nil {
		d.Stop = h.stop
		d.Started = func() {
			s.start()
			h.ready(&d, guard)
		}
	} else {
		d.Started = func() {
			s.start()
			logf := d.Logf
			if logf == nil {
				logf = func(string, ...any) {}
			}
			go a.dailyUpdates(a.updates(), d.Lang, d.Notify, logf).Run(ctx)
			upPresets(ctx, d.Lang, menu, d.Notify)
		}
	}
	err = a.reasonFirst(a.menuBar(d), s.started())
	s.end()
	return err
}

// upPresets mounts the presets marked to mount at login, once the menu is
// up, telling each failure.
func upPresets(ctx context.Context, p *i18n.Printer, menu *disks.Menu, notify func(title, text string) error) {
	if menu == nil {
		return
	}
	res, err := menu.S.Up(ctx, disks.UpOptions{})
	if err != nil {
		notify(p.T("Presets"), p.Err(err))
		return
	}
	for _, r := range res {
		if r.Err != nil {
			notify(p.T("Could not mount %s", r.Preset.Name), p.Err(r.Err))
		}
	}
}

// reasonFirst says why a menu bar that had started failed, before the save
// at its end, and returns the error as said; a menu bar that never started
// saves nothing, so its reason is said as any error is.
func (a *App) reasonFirst(err error, started bool) error {
	if err == nil || !started {
		return err
	}
	fmt.Fprintf(a.Stderr, "rambar: %v\n", err)
	return shownError{err}
}

// session is the menu-bar app's background work on kept disks (autosave,
// the saves before sleep and at the session's end), begun only once the
// menu is up and ended, with its last save, only if it began.
type session struct {
	mu     sync.Mutex
	begin  func() (end func()) // nil: no kept contents here
	ending func()
	begun  bool
	over   bool // ended: a start that comes late begins nothing
}

func (s *session) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.begun || s.over {
		return
	}
	s.begun = true
	if s.begin != nil {
		s.ending = s.begin()
	}
}

func (s *session) started() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.begun
}

func (s *session) end() {
	s.mu.Lock()
	end := s.ending
	s.ending, s.over = nil, true
	s.mu.Unlock()
	if end != nil {
		end()
	}
}
