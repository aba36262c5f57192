package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"rambar/disks"
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
func runTray(ctx context.Context, a *App) error {
	if err := a.canRunMenuBar(); err != nil {
		return err
	}
	release, err := a.singleInstance()
	if errors.Is(err, errAlreadyRunning) {
		fmt.Fprintln(a.Stderr, "rambar: already running in the menu bar")
		return nil
	}
	if err != nil {
		return err
	}
	defer release()
	d, err := a.trayDeps()
	if err != nil {
		return err
	}
	a.natives(&d)
	menu, _ := d.Disks.(*disks.Menu)
	var s session
	if c := a.newContents(menu); c != nil {
		d.Status = &tray.StatusLine{}
		g := a.sessionGuard(c, d.Notify, d.Status)
		s.begin = func() func() {
			bg, stop := context.WithCancel(ctx)
			c.background(bg, d.Notify)
			unwatch := a.watchSession(g)
			return func() {
				// Quitting (or logging out) with disks left mounted: save what
				// they keep, so nothing written since the last save is lost.
				stop()
				unwatch()
				a.endSession(g)
			}
		}
	}
	d.Started = func() {
		s.start()
		if menu == nil {
			return
		}
		res, err := menu.S.Up(ctx, nil)
		if err != nil {
			d.Notify("Presets", err.Error())
			return
		}
		for _, r := range res {
			if r.Err != nil {
				d.Notify("Could not mount "+r.Preset.Name, r.Err.Error())
			}
		}
	}
	err = a.reasonFirst(a.menuBar(d), s.started())
	s.end()
	return err
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
