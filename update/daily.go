package update

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Daily is the check once a day while the menu-bar app runs.
type Daily struct {
	S *Service
	// On reports whether the setting (Check for Updates Daily) is on; it is
	// asked before each check.
	On func() bool
	// Stamp is a file whose modification time is the last check's, so a
	// RAMBar started at each login still checks once a day.
	Stamp string
	// Found hears a newer release, once per version.
	Found func(Outcome)
	// Logf hears what went wrong (a daily check fails silently).
	Logf func(format string, args ...any)
	// First is how long after start the first look is (default 1 min),
	// Every how often it looks whether a day has passed (default 1 h).
	First, Every time.Duration
	Now          func() time.Time
}

// Run checks until ctx ends. A copy updated by Homebrew (or any that is not
// RAMBar.app from the dmg) never checks: brew upgrade updates it, and the
// check would only nag.
func (d *Daily) Run(ctx context.Context) {
	if d.S == nil || !d.S.Install.SelfUpdates() {
		return
	}
	first, every := d.First, d.Every
	if first <= 0 {
		first = time.Minute
	}
	if every <= 0 {
		every = time.Hour
	}
	now := d.Now
	if now == nil {
		now = time.Now
	}
	told := ""
	t := time.NewTimer(first)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		t.Reset(every)
		if d.On != nil && !d.On() || !d.due(now()) {
			continue
		}
		o, err := d.S.Check(ctx)
		if ctx.Err() != nil {
			return
		}
		d.touch(now())
		if err != nil {
			if d.Logf != nil {
				d.Logf("daily update check: %v", err)
			}
			continue
		}
		if o.Status == Available && o.Release.Version != told && d.Found != nil {
			told = o.Release.Version
			d.Found(o)
		}
	}
}

func (d *Daily) due(now time.Time) bool {
	if d.Stamp == "" {
		return true
	}
	fi, err := os.Stat(d.Stamp)
	return err != nil || now.Sub(fi.ModTime()) >= 24*time.Hour || fi.ModTime().After(now.Add(time.Hour))
}

func (d *Daily) touch(now time.Time) {
	if d.Stamp == "" {
		return
	}
	_ = os.MkdirAll(filepath.Dir(d.Stamp), 0o700)
	// Made or touched only as a file of its own: a link planted in its
	// place (another user's folder, as root) is never followed.
	if f, err := os.OpenFile(d.Stamp, os.O_CREATE|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600); err == nil {
		f.Close()
		_ = os.Chtimes(d.Stamp, now, now)
	}
}
