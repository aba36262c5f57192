package cocoa

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

type lineLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *lineLog) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *lineLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func TestNotifierAsksOnceAndPosts(t *testing.T) {
	f := &Fake{Grant: true}
	var log lineLog
	n := &Notifier{Center: f, Log: log.add}
	for _, msg := range []string{"one", "two", "three"} {
		if err := n.Notify(context.Background(), "RAMBar", msg); err != nil {
			t.Fatalf("Notify(%s): %v", msg, err)
		}
	}
	asked, posted := f.Counts()
	if asked != 1 {
		t.Errorf("authorisation asked %d times, want once", asked)
	}
	if strings.Join(posted, "|") != "RAMBar: one|RAMBar: two|RAMBar: three" {
		t.Errorf("posted %q", posted)
	}
	if !strings.Contains(log.text(), "notify: RAMBar: two") {
		t.Errorf("log lacks the notification:\n%s", log.text())
	}
}

// Notifications that come while the prompt is up wait for its one answer.
func TestNotifierConcurrentAskOnce(t *testing.T) {
	f := &Fake{Grant: true, Block: make(chan struct{})}
	n := &Notifier{Center: f, Log: func(string) {}}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- n.Notify(context.Background(), "t", "x") }()
	}
	close(f.Block)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if asked, posted := f.Counts(); asked != 1 || len(posted) != 8 {
		t.Errorf("asked %d, posted %d; want 1 and 8", asked, len(posted))
	}
}

func TestNotifierFallback(t *testing.T) {
	for _, c := range []struct {
		name      string
		center    *Fake // nil: not in a bundle
		fallback  bool
		wantErr   bool
		wantWhy   string
		wantAsked int
	}{
		{"denied, log only", &Fake{Grant: false}, false, true, "turned off in System Settings", 1},
		{"denied, osascript allowed", &Fake{Grant: false}, true, false, "trying osascript instead", 1},
		{"not in a bundle", nil, false, true, "not running from RAMBar.app", 0},
		{"ask failed", &Fake{AuthErr: errors.New("UNErrorDomain 1")}, false, true, "asking for permission: UNErrorDomain 1", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log lineLog
			var fell []string
			n := &Notifier{Log: log.add}
			if c.center != nil {
				n.Center = c.center
			}
			if c.fallback {
				n.Fallback = func(_ context.Context, title, text string) error { fell = append(fell, title+": "+text); return nil }
			}
			for range 2 {
				err := n.Notify(context.Background(), "Could not mount Scratch", "busy")
				if (err != nil) != c.wantErr {
					t.Fatalf("Notify = %v, want error %v", err, c.wantErr)
				}
				if err != nil && !errors.Is(err, ErrNotAllowed) {
					t.Errorf("error %v does not wrap ErrNotAllowed", err)
				}
			}
			if !strings.Contains(log.text(), c.wantWhy) {
				t.Errorf("log does not say %q:\n%s", c.wantWhy, log.text())
			}
			if strings.Count(log.text(), "; they are shown in this log only")+strings.Count(log.text(), "; trying osascript instead") != 1 {
				t.Errorf("the reason is not logged exactly once:\n%s", log.text())
			}
			if c.fallback && len(fell) != 2 {
				t.Errorf("fallback got %q, want both notifications", fell)
			}
			if c.center != nil {
				if asked, posted := c.center.Counts(); asked != c.wantAsked || len(posted) != 0 {
					t.Errorf("asked %d, posted %d; want %d and 0", asked, len(posted), c.wantAsked)
				}
			}
		})
	}
}

// A notification whose context ends while the prompt is up gives up; the
// question stays asked and its answer serves the next one.
func TestNotifierGivesUpWithContext(t *testing.T) {
	f := &Fake{Grant: true, Block: make(chan struct{})}
	n := &Notifier{Center: f, Log: func(string) {}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := n.Notify(ctx, "t", "gone"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Notify with a cancelled context = %v", err)
	}
	close(f.Block)
	if err := n.Notify(context.Background(), "t", "shown"); err != nil {
		t.Fatal(err)
	}
	if asked, posted := f.Counts(); asked != 1 || len(posted) != 1 || posted[0] != "t: shown" {
		t.Errorf("asked %d, posted %q", asked, posted)
	}
}

// A refusal is not kept for the life of the process: each later
// notification reads the settings again (no second prompt), so turning
// notifications on in System Settings works without restarting RAMBar.
func TestNotifierRereadsAfterARefusal(t *testing.T) {
	f := &Fake{Grant: false, Settings: AuthDenied}
	var logs []string
	n := &Notifier{Center: f, Log: func(l string) { logs = append(logs, l) }}
	ctx := context.Background()
	if err := n.Notify(ctx, "RAMBar", "one"); !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("refused: Notify = %v, want ErrNotAllowed", err)
	}
	f.mu.Lock()
	f.Settings = AuthAuthorized // the user allows RAMBar in System Settings
	f.mu.Unlock()
	if err := n.Notify(ctx, "RAMBar", "two"); err != nil {
		t.Fatalf("allowed since: Notify = %v", err)
	}
	if err := n.Notify(ctx, "RAMBar", "three"); err != nil {
		t.Fatalf("Notify = %v", err)
	}
	asked, posted := f.Counts()
	if asked != 1 {
		t.Errorf("asked %d times, want one prompt", asked)
	}
	if len(posted) != 2 || posted[0] != "RAMBar: two" {
		t.Errorf("posted %q, want two and three", posted)
	}
	f.mu.Lock()
	reads := f.Reads
	f.mu.Unlock()
	if reads != 2 { // after the refusal, and at "two"; "three" is granted
		t.Errorf("settings read %d times, want 2", reads)
	}
}
