//go:build !linux && !darwin

package changefeed

// Status is empty: this system has no feed.
func (f *Feed) Status() Status { return Status{} }

// Unwatched is 0: this system has no feed.
func (f *Feed) Unwatched() int { return 0 }
