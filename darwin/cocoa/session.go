package cocoa

import (
	"context"
	"errors"
	"fmt"
	"rambar/i18n"
	"sync"
	"time"
)

// Event is why the contents of RAM disks must be saved now.
type Event int

// Events, as macOS (or a signal) reports them.
const (
	// SessionEnding: logout, restart or shut down was chosen
	// (NSWorkspaceWillPowerOffNotification).
	SessionEnding Event = iota + 1
	// Terminating: the app is about to exit (applicationShouldTerminate:,
	// NSApplicationWillTerminateNotification, SIGTERM from launchd).
	Terminating
	// WillSleep: the Mac is going to sleep (kIOMessageSystemWillSleep; the
	// NSWorkspaceWillSleepNotification hint).
	WillSleep
)

// String names the event for logs.
func (e Event) String() string {
	switch e {
	case SessionEnding:
		return "session ending"
	case Terminating:
		return "terminating"
	case WillSleep:
		return "will sleep"
	}
	return fmt.Sprintf("event %d", int(e))
}

// Status is what the menu says while the save for e runs: "Saving before
// logout…".
func (e Event) Status() string {
	switch e {
	case WillSleep:
		return i18n.N("Saving before sleep…")
	case Terminating:
		return i18n.N("Saving before quitting…")
	}
	return i18n.N("Saving before logout…")
}

// Bounds on the save at an event. macOS does not wait for ever: at logout
// loginwindow gives up on an app that has not answered within about 30 s
// and cancels the logout, launchd sends SIGKILL ExitTimeOut seconds after
// SIGTERM (20 by default; the LaunchAgent sets 60, see darwin/README.md),
// and sleep waits at most 30 s for IOAllowPowerChange (Power answers by
// AllowBound; the save before it is bounded by SleepBound). So one logout has one
// budget, LogoutBudget, from its first sign to AppKit's reply; of it,
// NoticeReserve is kept for telling the user that the save failed, and the
// save itself gets the rest (EndBound).
const (
	LogoutBudget  = 30 * time.Second
	NoticeReserve = 5 * time.Second
	EndBound      = LogoutBudget - NoticeReserve
	SleepBound    = 20 * time.Second
)

// ErrTimedOut is returned by Guard.Run when the save outlived its bound; the
// save goes on in the background until its context ends.
var ErrTimedOut = errors.New("the save did not finish in time")

// Guard runs the save that must happen before the session ends or the Mac
// sleeps: one save at a time, bounded, with the menu told what is going on.
// Events arrive from the native observers (main thread), from a signal
// handler, or from both for one logout (will-power-off, then terminate): an
// event that comes while a save runs waits for that save instead of starting
// another beside it.
type Guard struct {
	// Save saves every kept and mirrored disk with unsaved changes, for e;
	// it must give up when ctx ends. Required.
	Save func(ctx context.Context, e Event) error
	// Status, when set, is told the words to show while saving ("" when
	// done). It is called with the Guard's lock held: it must not call back.
	Status func(text string)
	// Bound overrides EndBound and SleepBound (tests).
	Bound time.Duration

	mu  sync.Mutex
	cur *Saving
}

// Saving is one save in flight.
type Saving struct {
	done chan struct{}
	err  error
}

// Done is closed when the save has ended.
func (s *Saving) Done() <-chan struct{} { return s.done }

// Err waits for the save to end and returns its error.
func (s *Saving) Err() error {
	<-s.done
	return s.err
}

func (g *Guard) bound(e Event) time.Duration {
	switch {
	case g.Bound > 0:
		return g.Bound
	case e == WillSleep:
		return SleepBound
	}
	return EndBound
}

// Start begins the save for e unless one is running, and returns at once
// with that save. The native side uses it where it must not block the main
// thread (will-power-off, and applicationShouldTerminate: answering
// "later").
func (g *Guard) Start(e Event) *Saving { return g.startBy(e, time.Now().Add(g.bound(e))) }

// startBy is Start with the save told to stop at deadline.
func (g *Guard) startBy(e Event, deadline time.Time) *Saving {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cur != nil {
		return g.cur
	}
	s := &Saving{done: make(chan struct{})}
	g.cur = s
	if g.Status != nil {
		g.Status(e.Status()) // under the lock, so "" can't overtake it
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	go func() {
		defer cancel()
		s.err = g.Save(ctx, e)
		g.mu.Lock()
		g.cur = nil
		if g.Status != nil {
			g.Status("")
		}
		g.mu.Unlock()
		close(s.done)
	}()
	return s
}

// Busy reports whether a save is running.
func (g *Guard) Busy() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cur != nil
}

// Run saves for e and returns when the save is done or its bound has passed
// (ErrTimedOut; the save is told to stop through its context and goes on
// until it does). A save already running is waited for first, then one more
// is made, so what was written meanwhile is saved too (a save with nothing
// unsaved is cheap).
func (g *Guard) Run(e Event) error {
	deadline := time.NewTimer(g.bound(e))
	defer deadline.Stop()
	g.mu.Lock()
	cur := g.cur
	g.mu.Unlock()
	if cur != nil {
		select {
		case <-cur.done:
		case <-deadline.C:
			return fmt.Errorf("%s: %w", e, ErrTimedOut)
		}
	}
	s := g.Start(e)
	select {
	case <-s.done:
		if s.err != nil {
			return fmt.Errorf("save (%s): %w", e, s.err)
		}
		return nil
	case <-deadline.C:
		return fmt.Errorf("%s: %w", e, ErrTimedOut)
	}
}

// observer is one notification the session watch answers: its name, the
// center it is posted on, the selector of RAMBar's class that receives it,
// and what the Go side does (on the main thread).
type observer struct {
	name      string
	workspace bool // NSWorkspace's own center, not the default one
	sel       string
	do        func()
}

// observers are what Watch registers. Will-power-off starts the save and
// returns (the main thread keeps the menu alive during logout); will-sleep
// is only a hint: it starts the save early and returns, since Cocoa cannot
// hold sleep off (Power, through I/O Kit, does) and a main thread waiting
// there would freeze the menu; will-terminate returns only when the save is
// done or bounded, because AppKit calls exit as soon as it returns.
func observers(g *Guard, end *Ending, logf func(format string, args ...any)) []observer {
	logged := func(err error) {
		if err != nil {
			logf("%v", err)
		}
	}
	return []observer{
		{nameWillPowerOff, true, "rambarWillPowerOff:", end.SessionEnding},
		{nameWillSleep, true, "rambarWillSleep:", func() { g.Start(WillSleep) }},
		{nameWillTerminate, false, "rambarWillTerminate:", func() { logged(end.WillTerminate()) }},
	}
}
