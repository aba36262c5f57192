package cocoa

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestEventWords(t *testing.T) {
	for _, c := range []struct {
		e            Event
		name, status string
		bound        time.Duration
	}{
		{SessionEnding, "session ending", "Saving before logout…", EndBound},
		{Terminating, "terminating", "Saving before quitting…", EndBound},
		{WillSleep, "will sleep", "Saving before sleep…", SleepBound},
	} {
		if got := c.e.String(); got != c.name {
			t.Errorf("%d.String() = %q, want %q", int(c.e), got, c.name)
		}
		if got := c.e.Status(); got != c.status {
			t.Errorf("%v.Status() = %q, want %q", c.e, got, c.status)
		}
		if got := (&Guard{}).bound(c.e); got != c.bound {
			t.Errorf("bound(%v) = %v, want %v", c.e, got, c.bound)
		}
	}
	if (&Guard{Bound: time.Second}).bound(WillSleep) != time.Second {
		t.Error("Guard.Bound does not override the default bound")
	}
}

// statusLog records what the menu was told.
type statusLog struct {
	mu    sync.Mutex
	lines []string
}

func (s *statusLog) add(text string) { s.mu.Lock(); s.lines = append(s.lines, text); s.mu.Unlock() }
func (s *statusLog) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

func TestGuardRunSavesAndSaysSo(t *testing.T) {
	var st statusLog
	saves := 0
	g := &Guard{Save: func(ctx context.Context, _ Event) error {
		saves++
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the save's context has no deadline")
		}
		return nil
	}, Status: st.add}
	if err := g.Run(SessionEnding); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if saves != 1 {
		t.Errorf("%d saves, want 1", saves)
	}
	if got := st.get(); len(got) != 2 || got[0] != "Saving before logout…" || got[1] != "" {
		t.Errorf("status lines %q, want the saving line then empty", got)
	}
	if g.Busy() {
		t.Error("Busy after Run returned")
	}
}

func TestGuardRunReportsSaveError(t *testing.T) {
	boom := errors.New("disk full")
	g := &Guard{Save: func(context.Context, Event) error { return boom }}
	if err := g.Run(WillSleep); !errors.Is(err, boom) {
		t.Fatalf("Run = %v, want it to wrap %v", err, boom)
	}
}

// A save that never returns (a hung tool that ignores its context) does not
// keep the app from ending: Run gives up at the bound.
func TestGuardRunIsBounded(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	g := &Guard{Bound: time.Millisecond, Save: func(context.Context, Event) error {
		close(started)
		<-release
		return nil
	}}
	if err := g.Run(Terminating); !errors.Is(err, ErrTimedOut) {
		t.Fatalf("Run = %v, want ErrTimedOut", err)
	}
	<-started
	if !g.Busy() {
		t.Error("the hung save is no longer seen as running")
	}
}

// A save that honours its context is told to stop when the bound passes.
func TestGuardCancelsAtBound(t *testing.T) {
	stopped := make(chan error, 1)
	g := &Guard{Bound: time.Millisecond, Save: func(ctx context.Context, _ Event) error {
		<-ctx.Done()
		stopped <- ctx.Err()
		return ctx.Err()
	}}
	err := g.Run(WillSleep)
	if !errors.Is(err, ErrTimedOut) && !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Run = %v, want a timeout", err)
	}
	if err := <-stopped; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the save's context ended with %v, want DeadlineExceeded", err)
	}
}

// One logout brings will-power-off (Start, not blocking the main thread) and
// then terminate (Run): the second waits for the first save, then saves once
// more, never two at a time.
func TestGuardOneSaveAtATime(t *testing.T) {
	var mu sync.Mutex
	running, most, saves := 0, 0, 0
	first := make(chan struct{})
	release := make(chan struct{})
	g := &Guard{Save: func(context.Context, Event) error {
		mu.Lock()
		running++
		saves++
		n := saves
		if running > most {
			most = running
		}
		mu.Unlock()
		if n == 1 {
			close(first)
			<-release
		}
		mu.Lock()
		running--
		mu.Unlock()
		return nil
	}}
	s := g.Start(SessionEnding)
	<-first
	if again := g.Start(SessionEnding); again != s {
		t.Error("Start while a save runs started another")
	}
	if !g.Busy() {
		t.Error("not Busy while the save runs")
	}
	done := make(chan error, 1)
	go func() { done <- g.Run(Terminating) }()
	select {
	case err := <-done:
		t.Fatalf("Run returned (%v) while the first save was still running", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := s.Err(); err != nil {
		t.Errorf("first save: %v", err)
	}
	if saves != 2 || most != 1 {
		t.Errorf("%d saves, at most %d at once; want 2 saves, one at a time", saves, most)
	}
}

func TestEndingSavesOnceWhenTheDelegateIsAsked(t *testing.T) {
	saves := 0
	g := &Guard{Save: func(context.Context, Event) error { saves++; return nil }}
	e := &Ending{G: g}
	replied := make(chan struct{})
	if !e.ShouldTerminate(func() { close(replied) }) {
		t.Fatal("ShouldTerminate did not answer later")
	}
	<-replied
	if err := e.WillTerminate(); err != nil {
		t.Fatalf("WillTerminate: %v", err)
	}
	if saves != 1 {
		t.Errorf("%d saves, want 1 (the delegate's save finished; no second one)", saves)
	}
}

// noticeLog records the notifications an Ending sends.
type noticeLog struct {
	mu    sync.Mutex
	lines []string
}

func (n *noticeLog) notify(title, text string) {
	n.mu.Lock()
	n.lines = append(n.lines, title+": "+text)
	n.mu.Unlock()
}

func (n *noticeLog) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lines...)
}

// A save that failed is told before AppKit goes on, and not tried again in
// the same logout (it would fail the same way, and the budget is one).
func TestEndingNotifiesAFailedSaveOnce(t *testing.T) {
	saves := 0
	var told noticeLog
	g := &Guard{Save: func(context.Context, Event) error { saves++; return errors.New("store busy") }}
	e := &Ending{G: g, Notify: told.notify}
	replied := make(chan struct{})
	e.ShouldTerminate(func() { close(replied) })
	<-replied
	if got := told.get(); len(got) != 1 || !strings.Contains(got[0], "store busy") || !strings.Contains(got[0], "could not save") {
		t.Errorf("notices %q, want one saying the save failed and why", got)
	}
	if err := e.WillTerminate(); err != nil {
		t.Fatalf("WillTerminate: %v", err)
	}
	if saves != 1 {
		t.Errorf("%d saves, want 1: no second save in the same logout", saves)
	}
}

// terminate: without the delegate being asked (an exit that skips it),
// WillTerminate saves by itself.
func TestEndingWithoutTheDelegate(t *testing.T) {
	saves := 0
	e := &Ending{G: &Guard{Save: func(context.Context, Event) error { saves++; return nil }}}
	if err := e.WillTerminate(); err != nil || saves != 1 {
		t.Fatalf("WillTerminate = %v with %d saves, want nil and 1", err, saves)
	}
}

// One logout has one budget: a save that hangs past it still lets AppKit
// go on in time (the reply comes by the budget's end, with the notice sent
// within it), and no second save starts after the one that timed out,
// neither at terminate nor at will-terminate.
func TestEndingOneBudget(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	var mu sync.Mutex
	saves := 0
	g := &Guard{Save: func(ctx context.Context, _ Event) error {
		mu.Lock()
		saves++
		mu.Unlock()
		<-release // a hung tool that ignores its context
		return nil
	}}
	var told noticeLog
	const budget = 400 * time.Millisecond
	e := &Ending{G: g, Notify: told.notify, Budget: budget, Reserve: 100 * time.Millisecond}
	e.SessionEnding() // will-power-off: the save starts
	time.Sleep(50 * time.Millisecond)
	replied := make(chan struct{})
	if !e.ShouldTerminate(func() { close(replied) }) {
		t.Fatal("ShouldTerminate did not answer later")
	}
	select {
	case <-replied: // the save still hangs: only the budget can have let it go
	case <-time.After(30 * time.Second):
		t.Fatalf("no reply 30 s after a logout whose budget is %v", budget)
	}
	if got := told.get(); len(got) != 1 || !strings.Contains(got[0], ErrTimedOut.Error()) {
		t.Errorf("notices %q, want one saying the save did not finish in time", got)
	}
	if err := e.WillTerminate(); err != nil {
		t.Errorf("WillTerminate = %v, want nil: no second save after one that timed out", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if saves != 1 {
		t.Errorf("%d saves, want 1", saves)
	}
}

// A notification center that never answers (waiting for the user to allow
// notifications) does not hold the reply past the budget.
func TestEndingNoticeDoesNotHoldTheReply(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	g := &Guard{Save: func(context.Context, Event) error { return errors.New("disk full") }}
	e := &Ending{G: g, Notify: func(string, string) { <-hold }, Budget: 300 * time.Millisecond, Reserve: 100 * time.Millisecond}
	replied := make(chan struct{})
	e.ShouldTerminate(func() { close(replied) })
	select {
	case <-replied:
	case <-time.After(30 * time.Second):
		t.Fatal("the reply waited for a notification that never returned")
	}
}

// A logout another app cancelled leaves an ending whose budget passes; a
// quit later is a new ending and saves again.
func TestEndingAfterACancelledLogout(t *testing.T) {
	saves := 0
	g := &Guard{Save: func(context.Context, Event) error { saves++; return nil }}
	e := &Ending{G: g, Budget: 50 * time.Millisecond, Reserve: 10 * time.Millisecond}
	e.SessionEnding()
	for g.Busy() {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	replied := make(chan struct{})
	e.ShouldTerminate(func() { close(replied) })
	<-replied
	if saves != 2 {
		t.Errorf("%d saves, want 2 (the quit after the cancelled logout saves too)", saves)
	}
}

// What each observed notification does: will-power-off starts the save and
// returns while it runs; will-sleep and will-terminate return only after it.
func TestObservers(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var events []Event
	g := &Guard{Save: func(_ context.Context, e Event) error {
		mu.Lock()
		events = append(events, e)
		n := len(events)
		mu.Unlock()
		if n == 1 {
			<-release
		}
		return nil
	}}
	obs := observers(g, &Ending{G: g}, func(string, ...any) {})
	byName := map[string]observer{}
	for _, o := range obs {
		if ownMethods[o.sel] != 1 {
			t.Errorf("%s: selector %s is not one of RAMBar's one-argument methods", o.name, o.sel)
		}
		byName[o.name] = o
	}
	if len(obs) != 3 || !byName[nameWillPowerOff].workspace || !byName[nameWillSleep].workspace || byName[nameWillTerminate].workspace {
		t.Error("want will-power-off and will-sleep on NSWorkspace's center, will-terminate on the default one")
	}
	byName[nameWillPowerOff].do() // returns with the save running
	if !g.Busy() {
		t.Fatal("will-power-off did not start a save")
	}
	// Will-sleep is a hint: it returns at once, even while a save runs
	// (the main thread is never held; Power holds the sleep).
	returned := make(chan struct{})
	go func() { byName[nameWillSleep].do(); close(returned) }()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("the will-sleep observer blocked the main thread while a save ran")
	}
	close(release)
	byName[nameWillTerminate].do() // the logout's save ran: no other
	waitIdle(t, g)
	byName[nameWillSleep].do() // nothing running: the hint starts a save
	waitIdle(t, g)
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 2 || events[0] != SessionEnding || events[1] != WillSleep {
		t.Errorf("saves for %v; want session ending, will sleep (will-terminate: already saved in this ending)", events)
	}
}

// waitIdle waits until g runs no save.
func waitIdle(t *testing.T, g *Guard) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); g.Busy(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the save did not end")
		}
	}
}

// applicationShouldTerminate: answers "now" while nothing watches the
// session, and "later" (the reply to come) while a Guard does.
func TestTerminateReply(t *testing.T) {
	if got := terminateReply(nil, func() { t.Error("reply without an ending") }); got != terminateNow {
		t.Errorf("without an ending: %d, want terminateNow", got)
	}
	e := &Ending{G: &Guard{Save: func(context.Context, Event) error { return nil }}}
	replied := make(chan struct{})
	if got := terminateReply(e, func() { close(replied) }); got != terminateLater {
		t.Errorf("with an ending: %d, want terminateLater", got)
	}
	<-replied
}
