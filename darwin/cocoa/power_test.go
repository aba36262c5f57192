package cocoa

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPowerMessages drives Power from a fake root power domain: the sleep
// is allowed once, after the save ends or after the bound (the save still
// running), idle sleep is allowed at once without a save, the wake
// messages are not answered, and no message holds the callback's queue.
func TestPowerMessages(t *testing.T) {
	for _, c := range []struct {
		name string
		// saveFor is how long the save takes (until the test ends: -1).
		saveFor time.Duration
		deliver func(f *FakePower, p *Power)
		allowed []uintptr
		saves   int
		// allowAfterSave: the sleep is allowed only once the save ended;
		// otherwise it is allowed while the save still runs.
		allowAfterSave bool
		log            string
	}{
		{name: "will sleep, the save ends first", saveFor: 30 * time.Millisecond,
			deliver: func(f *FakePower, p *Power) { f.WillSleep(p, 7) },
			allowed: []uintptr{7}, saves: 1, allowAfterSave: true},
		{name: "will sleep, the save outlives the bound", saveFor: -1,
			deliver: func(f *FakePower, p *Power) { f.WillSleep(p, 8) },
			allowed: []uintptr{8}, saves: 1, log: "did not finish in time"},
		{name: "can system sleep: allowed at once, no save",
			deliver: func(f *FakePower, p *Power) { f.CanSleep(p, 9) },
			allowed: []uintptr{9}},
		{name: "wake messages: not answered",
			deliver: func(f *FakePower, p *Power) { f.Woke(p) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			var mu sync.Mutex
			saves, ended := 0, false
			g := &Guard{Bound: time.Minute, Save: func(ctx context.Context, e Event) error {
				if e != WillSleep {
					t.Errorf("saved for %v", e)
				}
				mu.Lock()
				saves++
				mu.Unlock()
				if c.saveFor >= 0 {
					time.Sleep(c.saveFor)
				} else {
					<-release
				}
				mu.Lock()
				ended = true
				mu.Unlock()
				return nil
			}}
			var logs []string
			var endedAtAllow []bool
			f := &FakePower{OnAllow: func(uintptr) {
				mu.Lock()
				endedAtAllow = append(endedAtAllow, ended)
				mu.Unlock()
			}}
			p := &Power{G: g, Allow: f.Allow, Bound: 100 * time.Millisecond, Logf: func(format string, args ...any) {
				mu.Lock()
				logs = append(logs, format)
				mu.Unlock()
			}}
			c.deliver(f, p)
			p.Wait()
			allowed, held := f.Answers()
			if len(allowed) != len(c.allowed) || (len(allowed) > 0 && allowed[0] != c.allowed[0]) {
				t.Errorf("IOAllowPowerChange for %v, want %v", allowed, c.allowed)
			}
			for _, h := range held {
				if h > 500*time.Millisecond {
					t.Errorf("a message held the callback's queue for %v", h)
				}
			}
			close(release)
			waitIdle(t, g)
			mu.Lock()
			defer mu.Unlock()
			if saves != c.saves {
				t.Errorf("%d saves, want %d", saves, c.saves)
			}
			if len(endedAtAllow) > 0 && c.saves > 0 && endedAtAllow[0] != c.allowAfterSave {
				t.Errorf("the save had ended at IOAllowPowerChange: %v, want %v", endedAtAllow[0], c.allowAfterSave)
			}
			if c.log != "" && !strings.Contains(strings.Join(logs, "\n"), "before sleep") {
				t.Errorf("logged %q, want the sleep's time-out said", logs)
			}
		})
	}
}

// TestPowerAllowErrorIsLogged: an IOAllowPowerChange that fails is said,
// and the save is not repeated for it.
func TestPowerAllowErrorIsLogged(t *testing.T) {
	g := &Guard{Save: func(context.Context, Event) error { return nil }}
	f := &FakePower{AllowErr: errors.New("IOAllowPowerChange: 0xe00002c2")}
	var mu sync.Mutex
	var logs []string
	p := &Power{G: g, Allow: f.Allow, Logf: func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range args {
			if err, ok := a.(error); ok {
				logs = append(logs, err.Error())
			}
		}
	}}
	f.WillSleep(p, 1)
	p.Wait()
	mu.Lock()
	defer mu.Unlock()
	if allowed, _ := f.Answers(); len(allowed) != 1 || len(logs) != 1 || !strings.Contains(logs[0], "0xe00002c2") {
		t.Errorf("allowed %v, logged %q", allowed, logs)
	}
}

// TestPowerMessageValues pins the message numbers to their derivation
// (IOMessage.h: iokit_common_msg(code) = err_system(0x38) | code).
func TestPowerMessageValues(t *testing.T) {
	common := func(code uint32) uint32 { return (0x38&0x3f)<<26 | code }
	for _, c := range []struct {
		msg  uint32
		code uint32
		name string
	}{
		{msgCanSystemSleep, 0x270, "can system sleep"},
		{msgSystemWillSleep, 0x280, "system will sleep"},
		{msgSystemWillNotSleep, 0x290, "system will not sleep"},
		{msgSystemHasPoweredOn, 0x300, "system has powered on"},
		{msgSystemWillPowerOn, 0x320, "system will power on"},
		{0xe0000310, 0x310, "message 0xe0000310"},
	} {
		if c.msg != common(c.code) {
			t.Errorf("%s = %#x, want %#x", c.name, c.msg, common(c.code))
		}
		if got := msgName(c.msg); got != c.name {
			t.Errorf("msgName(%#x) = %q, want %q", c.msg, got, c.name)
		}
	}
}

// TestPowerAfterTheHint: the workspace's will-sleep notice starts the save
// and returns; I/O Kit's will-sleep that follows waits for that save, makes
// one more (what was written meanwhile), and only then allows the sleep.
func TestPowerAfterTheHint(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	saves := 0
	g := &Guard{Save: func(context.Context, Event) error {
		mu.Lock()
		saves++
		n := saves
		mu.Unlock()
		if n == 1 {
			<-release
		}
		return nil
	}}
	byName := map[string]observer{}
	for _, o := range observers(g, &Ending{G: g}, func(string, ...any) {}) {
		byName[o.name] = o
	}
	byName[nameWillSleep].do() // returns with the save running
	f := &FakePower{}
	p := &Power{G: g, Allow: f.Allow}
	f.WillSleep(p, 3)
	time.Sleep(50 * time.Millisecond)
	if allowed, _ := f.Answers(); len(allowed) != 0 {
		t.Fatalf("the sleep was allowed (%v) while the hint's save ran", allowed)
	}
	close(release)
	p.Wait()
	allowed, held := f.Answers()
	mu.Lock()
	defer mu.Unlock()
	if len(allowed) != 1 || allowed[0] != 3 || saves != 2 {
		t.Errorf("allowed %v after %d saves; want [3] after 2 (the hint's, then one more)", allowed, saves)
	}
	if len(held) != 1 || held[0] > 500*time.Millisecond {
		t.Errorf("the message held the callback's queue for %v", held)
	}
}
