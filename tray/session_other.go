//go:build !linux && (cgo || !darwin)

package tray

// checkSession has nothing to check outside Linux: Cocoa needs no bus.
func checkSession() error { return nil }
