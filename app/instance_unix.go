//go:build unix && (cgo || !darwin)

// The single-instance lock guards the menu-bar app; the CLI-only darwin
// build (no cgo) has none.

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
	f, err := os.OpenFile(filepath.Join(dir, "rambar.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errAlreadyRunning
		}
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil
}
