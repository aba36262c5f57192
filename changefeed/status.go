package changefeed

// The kinds of feed (Status.Kind).
const (
	// KindFanotify follows a disk on Linux with one fanotify filesystem
	// mark: no inotify watch at all (root, or CAP_SYS_ADMIN).
	KindFanotify = "fanotify"
	// KindInotify follows a disk on Linux with an inotify watch per
	// folder, within the process's watch budget.
	KindInotify = "inotify"
	// KindFSEvents follows a disk on macOS with one FSEvents stream.
	KindFSEvents = "FSEvents"
)

// Status is which kind of feed follows a disk and what it holds, as
// `rambar info` and `rambar doctor` tell it. It is comparable.
type Status struct {
	// Kind is KindFanotify, KindInotify or KindFSEvents; Mode the test
	// mode's name when not the native feed ("fsevents").
	Kind string `json:"kind"`
	Mode string `json:"mode,omitempty"`
	// Watches are the inotify watches the feed holds (0 for fanotify and
	// FSEvents); Budget how many all feeds of the process may hold
	// together (inotify only).
	Watches int `json:"watches"`
	Budget  int `json:"budget,omitempty"`
	// Marks are the folders past the budget followed by fanotify inode
	// marks (which a normal user may set, and the desktop's inotify
	// programs do not share); Unwatched those past it that no mark
	// follows, which every save reads again (a walk of those folders,
	// every few seconds).
	Marks     int `json:"marks,omitempty"`
	Unwatched int `json:"unwatched,omitempty"`
	// Why says, on Linux, why the disk is not followed by fanotify.
	Why string `json:"why,omitempty"`
	// Lost says why the feed may have missed changes since the last
	// take (the next save walks the whole disk); "" when it did not.
	Lost string `json:"lost,omitempty"`
}

// lost is why p's changes are Lost ("" when they are not).
func (p *pending) lost() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.c.Lost {
		return ""
	}
	return p.c.Why
}
