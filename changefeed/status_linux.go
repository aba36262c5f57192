//go:build linux

package changefeed

// Status tells which kind of feed f is and what it holds.
func (f *Feed) Status() Status {
	if f.ext.fan != nil {
		return Status{Kind: KindFanotify}
	}
	s := Status{Kind: KindInotify, Budget: WatchBudget(), Why: f.ext.why}
	if f.mode != ModeNative {
		s.Mode = f.mode.String()
	}
	f.mu.Lock()
	s.Watches, s.Unwatched = len(f.wds), len(f.ext.unwatched)
	f.mu.Unlock()
	return s
}
