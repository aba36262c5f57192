//go:build unix

// The single-instance lock guards the menu-bar app; its pid in the lock
// file tells CLI commands that the menu-bar app (which autosaves) runs.

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rambar/internal/record"
	"strconv"
	"strings"
	"syscall"
)

// errAlreadyRunning: another menu-bar RAMBar holds the lock. Starting a
// second copy (the login item's RunAtLoad while one already runs, a double
// click) is not an error: the newcomer exits 0.
var errAlreadyRunning = errors.New("RAMBar is already running")

// singleInstance takes an exclusive lock next to the settings file, held
// until the process ends (the kernel drops it even after kill -9).
func (a *App) singleInstance() (release func(), err error) {
	if a.Paths.Settings == "" {
		return func() {}, nil
	}
	dir := filepath.Dir(a.Paths.Settings)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	// Never through a link planted in its place: the pid written below
	// would truncate whatever it names (as root, in another user's folder).
	f, err := os.OpenFile(a.lockPath(), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := record.Flock(context.Background(), f, 0); err != nil {
		f.Close()
		if errors.Is(err, record.ErrLocked) {
			return nil, errAlreadyRunning
		}
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	// The pid tells other RAMBar commands the menu-bar app runs (menuBarRunning)
	// without their taking the lock, which would make a starting app think
	// another copy holds it.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Truncate(0); f.Close() }, nil
}

// menuBarRunning tells whether the menu-bar app runs now (autosave happens
// only then): the pid in the single-instance lock file is a live process.
func (a *App) menuBarRunning() bool {
	_, ok := a.menuBarPID()
	return ok
}

// menuBarPID is the menu-bar app's process, when it runs now.
func (a *App) menuBarPID() (int, bool) {
	if a.Paths.Settings == "" {
		return 0, false
	}
	b, err := os.ReadFile(a.lockPath())
	if err != nil {
		return 0, false
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, record.Alive(pid)
}

func (a *App) lockPath() string { return filepath.Join(filepath.Dir(a.Paths.Settings), "rambar.lock") }
