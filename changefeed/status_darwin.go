//go:build darwin

package changefeed

// Status tells which kind of feed f is: one FSEvents stream, no watch
// per folder.
func (f *Feed) Status() Status { return Status{Kind: KindFSEvents} }

// Unwatched is 0: FSEvents follows every folder of the volume.
func (f *Feed) Unwatched() int { return 0 }
