package changefeed

import (
	"maps"
	"sync"
	"time"
)

// maxNamed is how many changed paths a feed names before it only counts
// them: the count of unsaved changes is shown, not the paths.
const maxNamed = 100_000

// Changes are what a feed saw between two takes.
type Changes struct {
	// Folders are the folders (relative to the disk's root, "." for the
	// root) in which something changed.
	Folders map[string]struct{}
	// Linked are the inodes of files given another name (a hard link
	// made): every name of them may have changed with no event of its
	// folder.
	Linked map[uint64]struct{}
	// Paths is how many distinct paths changed (a file written a thousand
	// times is one).
	Paths int
	// Lost: the feed may have missed something since the last take; only
	// a walk of the whole disk can tell what changed. Why says what.
	Lost bool
	Why  string
	// Last is when the newest change arrived (zero: none).
	Last time.Time
}

// Empty reports whether nothing changed and nothing was missed.
func (c Changes) Empty() bool { return !c.Lost && len(c.Folders) == 0 }

// pending gathers a feed's changes under its lock; the system feeds add to
// it from their reader.
type pending struct {
	mu      sync.Mutex
	c       Changes
	named   map[string]struct{}
	wake    chan struct{}
	ignored func(folder, name string) bool
}

func newPending(ignored func(folder, name string) bool) *pending {
	return &pending{c: Changes{Lost: true, Why: "the feed just started"}, wake: make(chan struct{}, 1), ignored: ignored}
}

// add records a change to name in folder ("" name: the folder itself).
func (p *pending) add(folder, name string, at time.Time) {
	if p.ignored != nil && p.ignored(folder, name) {
		return
	}
	p.mu.Lock()
	if p.c.Folders == nil {
		p.c.Folders = map[string]struct{}{}
	}
	p.c.Folders[folder] = struct{}{}
	key := folder + "/" + name
	if _, ok := p.named[key]; !ok {
		if p.named == nil {
			p.named = map[string]struct{}{}
		}
		if len(p.named) < maxNamed {
			p.named[key] = struct{}{}
		}
		p.c.Paths++
	}
	p.c.Last = at
	p.mu.Unlock()
	p.poke()
}

// lose records that the feed may have missed something.
func (p *pending) lose(why string) {
	p.mu.Lock()
	if !p.c.Lost {
		p.c.Lost, p.c.Why = true, why
	}
	p.c.Last = time.Now()
	p.mu.Unlock()
	p.poke()
}

func (p *pending) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Take returns the changes since the last take, and starts afresh.
func (p *pending) Take() Changes {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.c
	p.c, p.named = Changes{}, nil
	return c
}

// Peek returns the changes since the last take, leaving them.
func (p *pending) Peek() Changes {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.c
	c.Folders, c.Linked = maps.Clone(p.c.Folders), maps.Clone(p.c.Linked)
	return c
}

// Wake receives when a change arrives (one wake-up for a burst).
func (p *pending) Wake() <-chan struct{} { return p.wake }
