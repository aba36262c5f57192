//go:build !unix

package main

import "errors"

var errAlreadyRunning = errors.New("RAMBar is already running")

// singleInstance is a no-op where flock(2) does not exist.
func (a *App) singleInstance() (func(), error) { return func() {}, nil }

// menuBarRunning cannot be told here; autosave is reported as not running.
func (a *App) menuBarRunning() bool { return false }

// menuBarPID cannot be told here.
func (a *App) menuBarPID() (int, bool) { return 0, false }
