package changefeed

import (
	"fmt"
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
	// Named gives, for folders of Folders, the names in them that changed
	// (none: only the folder's own entry did): a save looks at those
	// entries again and takes the rest of the folder as it was. A folder
	// of Folders not in Named is read whole (too many names, or a feed
	// whose events may not name every change: only inotify's give names).
	Named map[string]map[string]struct{}
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
	// names: the feed's events name every change in a folder (Named is
	// kept); whole are the folders whose names passed maxNames.
	names  bool
	whole  map[string]bool
	stored int // names in c.Named
	// dropEvery, when above 0, makes every dropEvery-th take Lost (the
	// FSEvents test mode's drops); takes counts them.
	dropEvery, takes int
}

// maxNames is how many changed names a feed keeps (Changes.Named) before
// the folders it hears more of are read whole.
const maxNames = 50_000

func newPending(ignored func(folder, name string) bool, names bool) *pending {
	return &pending{c: Changes{Lost: true, Why: "the feed just started"}, wake: make(chan struct{}, 1), ignored: ignored, names: names}
}

// addName records name in folder in c.Named ("" adds none: the folder's
// own entry changed); mu is held.
func (p *pending) addName(folder, name string) {
	if !p.names || p.whole[folder] {
		return
	}
	if p.c.Named == nil {
		p.c.Named = map[string]map[string]struct{}{}
	}
	set := p.c.Named[folder]
	if set == nil {
		set = map[string]struct{}{}
		p.c.Named[folder] = set
	}
	if _, ok := set[name]; ok || name == "" {
		return
	}
	if p.stored >= maxNames {
		if p.whole == nil {
			p.whole = map[string]bool{}
		}
		p.whole[folder] = true
		p.stored -= len(set)
		delete(p.c.Named, folder)
		return
	}
	set[name] = struct{}{}
	p.stored++
}

// add records a change to name in folder ("" name: the folder itself),
// and wakes whoever waits for one.
func (p *pending) add(folder, name string, at time.Time) {
	if p.mark(folder, name, at) {
		p.poke()
	}
}

// mark records a change to name in folder at or before at, waking no one
// (a look at the open files, not an event); false when ignored.
func (p *pending) mark(folder, name string, at time.Time) bool {
	if p.ignored != nil && p.ignored(folder, name) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.c.Folders == nil {
		p.c.Folders = map[string]struct{}{}
	}
	p.c.Folders[folder] = struct{}{}
	p.addName(folder, name)
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
	if at.After(p.c.Last) {
		p.c.Last = at
	}
	return true
}

// link records that file ino was given another name.
func (p *pending) link(ino uint64) {
	p.mu.Lock()
	if p.c.Linked == nil {
		p.c.Linked = map[uint64]struct{}{}
	}
	p.c.Linked[ino] = struct{}{}
	p.mu.Unlock()
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
	p.c, p.named, p.whole, p.stored = Changes{}, nil, nil, 0
	if p.dropEvery > 0 {
		if p.takes++; p.takes%p.dropEvery == 0 && !c.Lost {
			c.Lost, c.Why = true, fmt.Sprintf("FSEvents dropped events (the test mode drops one take in %d)", p.dropEvery)
		}
	}
	return c
}

// Peek returns the changes since the last take, leaving them.
func (p *pending) Peek() Changes {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := p.c
	c.Folders, c.Linked = maps.Clone(p.c.Folders), maps.Clone(p.c.Linked)
	c.Named = nil // a peek tells what changed, not where exactly
	return c
}

// Wake receives when a change arrives (one wake-up for a burst).
func (p *pending) Wake() <-chan struct{} { return p.wake }

// Held tells, without copying the changes as Peek does, how many paths
// changed since the last take (Changes.Paths), whether the feed may have
// missed one (Changes.Lost), and when the newest change arrived (zero:
// none).
func (p *pending) Held() (paths int, lost bool, last time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.c.Paths, p.c.Lost, p.c.Last
}
