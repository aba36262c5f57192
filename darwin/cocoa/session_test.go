package cocoa

import (
	"context"
	"errors"
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

func TestEndingSavesAgainAfterAFailedSave(t *testing.T) {
	saves := 0
	g := &Guard{Save: func(context.Context, Event) error {
		saves++
		if saves == 1 {
			return errors.New("store busy")
		}
		return nil
	}}
	e := &Ending{G: g}
	replied := make(chan struct{})
	e.ShouldTerminate(func() { close(replied) })
	<-replied
	if err := e.WillTerminate(); err != nil {
		t.Fatalf("WillTerminate: %v", err)
	}
	if saves != 2 {
		t.Errorf("%d saves, want 2 (the first failed)", saves)
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

// A hung save still lets AppKit go on: reply comes at the bound.
func TestEndingRepliesAtTheBound(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	g := &Guard{Bound: time.Millisecond, Save: func(context.Context, Event) error { <-release; return nil }}
	e := &Ending{G: g}
	replied := make(chan struct{})
	e.ShouldTerminate(func() { close(replied) })
	<-replied
	if err := e.WillTerminate(); !errors.Is(err, ErrTimedOut) {
		t.Fatalf("WillTerminate = %v, want ErrTimedOut (the hung save is waited for, bounded)", err)
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
	launched := 0
	var logs []string
	obs := observers(g, &Ending{G: g}, func() error { launched++; return errors.New("no delegate") },
		func(f string, a ...any) { logs = append(logs, f) })
	byName := map[string]observer{}
	for _, o := range obs {
		if ownMethods[o.sel] != 1 {
			t.Errorf("%s: selector %s is not one of RAMBar's one-argument methods", o.name, o.sel)
		}
		byName[o.name] = o
	}
	if !byName[nameWillPowerOff].workspace || !byName[nameWillSleep].workspace || byName[nameWillTerminate].workspace || byName[nameDidFinishLaunched].workspace {
		t.Error("the workspace notifications must be observed on NSWorkspace's center, the app's on the default one")
	}
	byName[nameWillPowerOff].do() // returns with the save running
	if !g.Busy() {
		t.Fatal("will-power-off did not start a save")
	}
	done := make(chan struct{})
	go func() { byName[nameWillSleep].do(); close(done) }()
	close(release)
	<-done
	byName[nameWillTerminate].do()
	byName[nameDidFinishLaunched].do()
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 3 || events[0] != SessionEnding || events[1] != WillSleep || events[2] != Terminating {
		t.Errorf("saves for %v; want session ending, will sleep, terminating", events)
	}
	if launched != 1 || len(logs) != 1 {
		t.Errorf("launched %d times, %d log lines; want 1 and 1 (its error)", launched, len(logs))
	}
	if len(observers(g, &Ending{G: g}, nil, nil)) != 3 {
		t.Error("without a launched hook there should be three observers")
	}
}
