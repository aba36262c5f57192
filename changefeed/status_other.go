//go:build !linux && !darwin

package changefeed

// Status is empty: this system has no feed.
func (f *Feed) Status() Status { return Status{} }

// WatchBudget is 0: this system has no feed.
func WatchBudget() int { return 0 }

// FanotifyDenied says why this process cannot follow disks by fanotify:
// it is Linux's.
func FanotifyDenied() string { return "fanotify is Linux's" }

// Unwatched is 0: this system has no feed.
func (f *Feed) Unwatched() int { return 0 }
