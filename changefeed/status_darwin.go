//go:build darwin

package changefeed

// Status tells which kind of feed f is: one FSEvents stream, no watch
// per folder.
func (f *Feed) Status() Status { return Status{Kind: KindFSEvents, Lost: f.lost()} }

// WatchBudget is 0: FSEvents needs no watches.
func WatchBudget() int { return 0 }

// FanotifyDenied says why this process cannot follow disks by fanotify:
// it is Linux's.
func FanotifyDenied() string { return "fanotify is Linux's" }

// Unwatched is 0: FSEvents follows every folder of the volume.
func (f *Feed) Unwatched() int { return 0 }
