package cocoa

import (
	"fmt"
	"strings"
)

// Report is what `rambar doctor --capture` records about the native side:
// what a first run on a Mac must tell (darwin/README.md). Nothing in it asks
// the user anything.
type Report struct {
	InBundle bool
	BundleID string
	// Login is SMAppService's status, or LoginErr why there is none.
	Login    ServiceStatus
	LoginErr string
	// Notify is UNUserNotificationCenter's authorisation status, or
	// NotifyErr why there is none.
	Notify    AuthStatus
	NotifyErr string
}

// AuthStatus is UNAuthorizationStatus.
type AuthStatus int

// UNAuthorizationStatus values.
const (
	AuthNotDetermined AuthStatus = 0
	AuthDenied        AuthStatus = 1
	AuthAuthorized    AuthStatus = 2
	AuthProvisional   AuthStatus = 3
	AuthEphemeral     AuthStatus = 4
)

// Allows reports whether notifications may be shown in this state.
func (s AuthStatus) Allows() bool {
	return s == AuthAuthorized || s == AuthProvisional || s == AuthEphemeral
}

// String is the status in words.
func (s AuthStatus) String() string {
	switch s {
	case AuthNotDetermined:
		return "not asked yet"
	case AuthDenied:
		return "denied"
	case AuthAuthorized:
		return "allowed"
	case AuthProvisional:
		return "provisional"
	case AuthEphemeral:
		return "ephemeral"
	}
	return fmt.Sprintf("status %d", int(s))
}

// Text is the report as the capture file holds it, one fact per line.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "in app bundle: %v\n", r.InBundle)
	if r.BundleID != "" {
		fmt.Fprintf(&b, "bundle identifier: %s\n", r.BundleID)
	}
	if r.LoginErr != "" {
		fmt.Fprintf(&b, "login item (SMAppService): none: %s\n", r.LoginErr)
	} else {
		fmt.Fprintf(&b, "login item (SMAppService): %s (%d)\n", r.Login, int(r.Login))
	}
	if r.NotifyErr != "" {
		fmt.Fprintf(&b, "notifications (UNUserNotificationCenter): none: %s\n", r.NotifyErr)
	} else {
		fmt.Fprintf(&b, "notifications (UNUserNotificationCenter): %s (%d)\n", r.Notify, int(r.Notify))
	}
	return b.String()
}
