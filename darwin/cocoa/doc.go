// Package cocoa is RAMBar's native macOS side, reached through
// github.com/ebitengine/purego/objc so that it compiles (and vets) with
// CGO_ENABLED=0 from any OS: the workspace observers that say the session is
// ending or the Mac is going to sleep, notifications through
// UNUserNotificationCenter, the New RAM Disk window (an NSAlert with an
// accessory view) and the login item through SMAppService.
//
// The Objective-C calls live in files built for darwin only. What decides
// around them is plain Go in files with no build tag, each behind a small
// interface with a fake in this package, so Linux tests run it: Guard (the
// bounded save when the session ends, also driven by SIGTERM), Notifier
// (authorisation asked once, the fallback), Form (the dialog's fields, their
// checks and the plan's words), and Login (SMAppService or the LaunchAgent).
package cocoa
