package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

// autosaveTick is how often the tray looks for kept disks whose own
// interval (--save-every, a preset's save interval) has passed.
const autosaveTick = 30 * time.Second

// contents runs the menu's saves that no click starts: autosave, a save
// before sleep and one at quit, all through the use cases (so each takes
// the disk's lock, like the CLI's).
type contents struct {
	a    *App
	svc  *disks.Service
	menu *disks.Menu
}

// newContents returns nil when there is no data folder (no HOME).
func (a *App) newContents(menu *disks.Menu) *contents {
	if menu == nil {
		return nil
	}
	if _, err := menu.S.Keeper(); err != nil {
		return nil
	}
	return &contents{a: a, svc: menu.S, menu: menu}
}

// report notifies a failed save, forgets the disk's unsaved mark and
// records a Mirror write-back for the disk's entry (its conflicts are
// notified through the menu's Conflicts hook).
func (c *contents) report(notify func(title, text string) error) func(string, keeper.Result, error) {
	return func(name string, r keeper.Result, err error) {
		c.menu.Forget(name)
		if err != nil {
			notify(c.a.lang().T("Could not save %s", name), c.a.lang().Err(err))
		}
		c.menu.Saved(name, r)
	}
}

// noticesOf has m tell the user of Mirror conflicts and of saved contents
// others can read through notes, in p's language: the menu-bar app and
// the agent alike.
func noticesOf(m *disks.Menu, notes *notifier, p *i18n.Printer) {
	m.Conflicts = func(name string, wb keeper.WriteBack) { notes.Notify(conflictNotice(p, name, wb)) }
	m.S.Warn = func(msg string) { notes.Notify(p.T("Saved contents readable by others"), msg) }
}

// conflictNotice is the menu's notification of a write-back that kept
// both versions of some paths.
func conflictNotice(p *i18n.Printer, name string, wb keeper.WriteBack) (title, text string) {
	n := len(wb.Conflicts)
	title = p.T("%s: %d conflicts in %s", name, n, wb.Folder)
	lines := []string{p.T("Changed on the disk and in the folder; both versions are kept:")}
	for i, c := range wb.Conflicts {
		if i == 5 {
			lines = append(lines, p.T("and %d more ('rambar save %s' lists them)", n-5, name))
			break
		}
		lines = append(lines, c.String())
	}
	return title, strings.Join(lines, "\n")
}

// saveAll saves every kept or mirrored disk with unsaved changes, notifying
// failures: before sleep and when the app quits leaving disks mounted.
func (c *contents) saveAll(ctx context.Context, notify func(title, text string) error) {
	c.svc.SaveAll(ctx, nil, c.report(notify))
}

// background runs autosave and the save before sleep until ctx ends.
// Disks without a save interval are not autosaved. The save before sleep
// is bounded: its notices go out from goroutines of their own, so it never
// waits for one.
func (c *contents) background(ctx context.Context, notes *notifier) {
	go c.svc.Autosave(ctx, autosaveTick, c.report(notes.Notify))
	go func() {
		err := keeper.WatchSleep(ctx, func(ctx context.Context) {
			c.saveAll(ctx, func(title, text string) error { notes.Go(title, text); return nil })
		})
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ramdisk.ErrUnsupported) && c.a.Getenv("RAMBAR_DEBUG") != "" {
			c.a.Stderr.Write([]byte("rambar: " + err.Error() + "\n"))
		}
	}()
}
