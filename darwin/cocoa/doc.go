// Package cocoa is RAMBar's native macOS side, reached through
// github.com/ebitengine/purego/objc so that it compiles (and vets) with
// CGO_ENABLED=0 from any OS, beside the menu bar's status item (fyne's,
// through cgo): what is readied before the run loop starts (Prepare: the
// app delegate's applicationShouldTerminate:, the hidden main menu with its
// Edit submenu, the notification delegate), the workspace observers that
// say the session is ending or the Mac is going to sleep, notifications
// through UNUserNotificationCenter, the New RAM Disk window (an NSAlert with
// an accessory view), the login item through SMAppService, and what the
// self-test reads back (Probe, ProbeDialog, StatusItemTitle).
//
// The Objective-C calls live in files built for darwin only. What decides
// around them is plain Go in files with no build tag, each behind a small
// interface with a fake in this package, so Linux tests run it: Guard and
// Ending (the bounded save when the session ends, one budget per logout,
// also driven by SIGTERM), Notifier (authorisation asked once, a refusal
// read again), Form (the dialog's fields, their checks and the plan's
// words), Login (SMAppService, or the LaunchAgent and why), and the checks
// of what Probe reads back.
package cocoa
