package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// notifyWait bounds how long a notice may take to show (a first
// notification on macOS waits for the user to answer the permission
// prompt).
const notifyWait = 30 * time.Second

// notifier is the one way the menu-bar app tells the user something: every
// notice (a failed action, a folder's conflicts, a save that failed before
// logout, the self-test's) goes through the App's one notifier, so each
// shows the same way on one OS (UNUserNotificationCenter on macOS, zenity
// on Linux, stderr only with RAMBAR_NOTIFY=log). notify_test.go fails when
// a notice is built any other way.
type notifier struct {
	show func(ctx context.Context, title, text string) error
}

// Notify shows a notice and waits for it, at most notifyWait.
func (n *notifier) Notify(title, text string) error {
	ctx, cancel := context.WithTimeout(context.Background(), notifyWait)
	defer cancel()
	return n.show(ctx, title, text)
}

// Go shows a notice from a goroutine of its own and returns at once: for
// the bounded saves (logout, sleep), which must never wait for a
// notification center that is asking the user for permission. The channel
// gets the result.
func (n *notifier) Go(title, text string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- n.Notify(title, text) }()
	return done
}

// notices is the App's notifier, made once.
func (a *App) notices() *notifier {
	a.notesOnce.Do(func() {
		show := a.notifyVia
		switch {
		case show != nil:
		case a.Getenv("RAMBAR_NOTIFY") == "log":
			show = a.logNotice
		default:
			show = a.desktopNotify()
		}
		a.notes = &notifier{show: show}
	})
	return a.notes
}

// logNotice writes a notice to stderr only.
func (a *App) logNotice(_ context.Context, title, text string) error {
	fmt.Fprintf(a.Stderr, "rambar: notify: %s: %s\n", title, text)
	return nil
}

// noticeState is the App's notifier and what picks it (tests set notifyVia).
type noticeState struct {
	notifyVia func(ctx context.Context, title, text string) error
	notesOnce sync.Once
	notes     *notifier
}
