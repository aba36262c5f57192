package cocoa

import (
	"context"
	"errors"
	"fmt"
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
	// WillSleep: the Mac is going to sleep (NSWorkspaceWillSleepNotification).
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
		return "Saving before sleep…"
	case Terminating:
		return "Saving before quitting…"
	}
	return "Saving before logout…"
}

// Bounds on the save at an event. macOS does not wait for ever: at logout
// loginwindow gives up on an app that has not answered within about 30 s
// and cancels the logout, launchd sends SIGKILL ExitTimeOut seconds after
// SIGTERM (20 by default; the LaunchAgent sets 60, see darwin/README.md),
// and sleep goes on whether or not the app is done. So one logout has one
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

// Ending is one logout (or quit) as AppKit brings it: will-power-off,
// then applicationShouldTerminate: (answered "later" so the main thread
// keeps running and the menu can say what it does), then
// applicationWillTerminate:, after which AppKit calls exit. The whole of it
// has one budget (LogoutBudget) from its first sign to AppKit's reply:
//
//   - the save runs once, bounded by the budget less NoticeReserve; a second
//     sign while it runs waits for it;
//   - after a save that failed or ran out of time there is no second one;
//     after one that succeeded, terminate saves once more within what is
//     left (what was written meanwhile; cheap when nothing was);
//   - a save that failed or ran out of time is told in a notification
//     (Notify, from a goroutine, waited for at most until the budget ends)
//     before AppKit is let go on;
//   - WillTerminate saves only when termination skipped the delegate (no
//     save ran in this ending).
//
// A sign that comes after the budget of the last one has passed (a logout
// another app cancelled, then a quit days later) starts a new ending.
type Ending struct {
	G *Guard
	// Notify, when set, tells the user that the save failed. It is called
	// from a goroutine of its own and may block (a notification center
	// asking for permission): nothing waits for it past the budget.
	Notify func(title, text string)
	// Budget and Reserve override LogoutBudget and NoticeReserve (tests).
	Budget, Reserve time.Duration

	mu       sync.Mutex
	deadline time.Time // the reply is due by then; zero: no ending yet
	saving   *Saving   // this ending's last save
	failed   error     // why it did not finish well (nil: it did, or none ended yet)
	ran      bool      // a save ran in this ending
}

func (e *Ending) budget() (total, reserve time.Duration) {
	total, reserve = LogoutBudget, NoticeReserve
	if e.Budget > 0 {
		total = e.Budget
	}
	if e.Reserve > 0 {
		reserve = e.Reserve
	}
	return total, min(reserve, total/2)
}

// begin opens the ending at its first sign (or a new one after the last
// budget passed) and returns when the save must stop and the reply is due.
// Called with e.mu held.
func (e *Ending) begin(now time.Time) (saveBy, replyBy time.Time) {
	total, reserve := e.budget()
	if e.deadline.IsZero() || now.After(e.deadline) {
		e.deadline, e.saving, e.failed, e.ran = now.Add(total), nil, nil, false
	}
	return e.deadline.Add(-reserve), e.deadline
}

// save starts this ending's save for ev unless one is running or a save
// of this ending already failed; it returns the save to wait for (nil:
// none). Called with e.mu held.
func (e *Ending) save(ev Event, saveBy time.Time) *Saving {
	switch {
	case e.saving != nil && !ended(e.saving):
		return e.saving
	case e.failed != nil, !time.Now().Before(saveBy):
		return nil
	}
	e.saving, e.ran = e.G.startBy(ev, saveBy), true
	return e.saving
}

func ended(s *Saving) bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// SessionEnding is will-power-off: the ending's save starts, and this
// returns at once (the main thread keeps the menu alive during logout).
func (e *Ending) SessionEnding() {
	e.mu.Lock()
	defer e.mu.Unlock()
	saveBy, _ := e.begin(time.Now())
	e.save(SessionEnding, saveBy)
}

// ShouldTerminate saves (or waits for the ending's save) and arranges for
// reply to be called once, from another goroutine, by the end of the
// budget; a failed or unfinished save is notified first. It reports
// whether termination must wait for reply (NSTerminateLater).
func (e *Ending) ShouldTerminate(reply func()) (later bool) {
	e.mu.Lock()
	saveBy, replyBy := e.begin(time.Now())
	s := e.save(Terminating, saveBy)
	e.mu.Unlock()
	go func() {
		defer reply()
		err := e.wait(s, saveBy)
		if err == nil {
			return
		}
		if e.Notify == nil {
			return
		}
		told := make(chan struct{})
		go func() {
			defer close(told)
			e.Notify("RAMBar could not save before quitting", err.Error()+". What was written since the last save may be lost.")
		}()
		t := time.NewTimer(time.Until(replyBy))
		defer t.Stop()
		select {
		case <-told:
		case <-t.C:
		}
	}()
	return true
}

// wait waits for s until saveBy and records how the ending's save went:
// nil when it (or an earlier save of this ending, when s is nil) finished
// well.
func (e *Ending) wait(s *Saving, saveBy time.Time) error {
	var err error
	if s != nil {
		t := time.NewTimer(time.Until(saveBy))
		defer t.Stop()
		select {
		case <-s.Done():
			err = s.Err()
		case <-t.C:
			err = ErrTimedOut
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err != nil && e.failed == nil {
		e.failed = err
	}
	return e.failed
}

// WillTerminate is the last chance before exit: it saves (bounded by
// EndBound) only when no save ran in this ending, because termination
// skipped the delegate.
func (e *Ending) WillTerminate() error {
	e.mu.Lock()
	// A save of an ending long past (a logout another app cancelled) does
	// not count for this exit.
	ran := e.ran && time.Now().Before(e.deadline.Add(LogoutBudget))
	e.mu.Unlock()
	if ran {
		return nil
	}
	return e.G.Run(Terminating)
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
// and will-terminate return only when the save is done or bounded, because
// the system goes on as soon as they return.
func observers(g *Guard, end *Ending, logf func(format string, args ...any)) []observer {
	logged := func(err error) {
		if err != nil {
			logf("%v", err)
		}
	}
	return []observer{
		{nameWillPowerOff, true, "rambarWillPowerOff:", end.SessionEnding},
		{nameWillSleep, true, "rambarWillSleep:", func() { logged(g.Run(WillSleep)) }},
		{nameWillTerminate, false, "rambarWillTerminate:", func() { logged(end.WillTerminate()) }},
	}
}

// terminateReply is applicationShouldTerminate:'s answer: "now" while no
// Guard watches the session (nothing to save), otherwise end decides and
// reply lets AppKit go on later.
func terminateReply(end *Ending, reply func()) uint {
	if end == nil || !end.ShouldTerminate(reply) {
		return terminateNow
	}
	return terminateLater
}
