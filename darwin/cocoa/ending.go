package cocoa

import (
	"sync"
	"time"
)

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

// terminateReply is applicationShouldTerminate:'s answer: "now" while no
// Guard watches the session (nothing to save), otherwise end decides and
// reply lets AppKit go on later.
func terminateReply(end *Ending, reply func()) uint {
	if end == nil || !end.ShouldTerminate(reply) {
		return terminateNow
	}
	return terminateLater
}
