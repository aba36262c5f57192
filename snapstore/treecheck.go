package snapstore

import (
	"fmt"
	"strings"

	"rambar/tree"
)

// A save checks each manifest as it writes it with the rules it is read
// with (validate.go), so that a save that would write a snapshot no
// restore can read fails instead of committing it: each entry on its own
// (checkEntry), the paths in strict pathLess order, and for a whole tree
// (checkTree) the root first, every path inside a folder listed before it
// and every hard link naming a file with data before it. A delta is a
// list, checked as one; the tree it makes with its base is checked by
// reading the base alongside (checkDeltaTree), when the delta changes the
// tree's shape (a path added or removed, a kind or a hard link changed):
// one that only replaces files with files keeps its base's valid shape.

// TreeCheck checks entries one at a time, in the order they are written.
type TreeCheck struct {
	id   string // the snapshot, for messages
	Tree bool   // whole trees: checkTree's rules too
	N    int
	prev string
	// dirs are the folders holding the last path, outermost first (a
	// folder's contents follow it in pathLess order, so its parent is
	// the innermost one that holds the next path).
	dirs []string
	// targets are the paths the tree's hard links name: true once seen
	// as a file with data.
	targets map[string]bool
}

// NewTreeCheck checks the entries of snapshot id: a whole tree whose hard
// links name targets, or (tree false) a delta's list.
func NewTreeCheck(id string, whole bool, targets map[string]bool) *TreeCheck {
	return &TreeCheck{id: id, Tree: whole, targets: targets}
}

// Add checks the next entry.
func (c *TreeCheck) Add(e *tree.Entry) error {
	if err := c.entry(e); err != nil {
		return fmt.Errorf("write snapshot %s: %w: %v", c.id, ErrBadManifest, err)
	}
	return nil
}

func (c *TreeCheck) entry(e *tree.Entry) error {
	if err := checkEntry(e); err != nil {
		return err
	}
	if c.N++; c.N > maxCount {
		return fmt.Errorf("too many entries")
	}
	if c.N > 1 && !tree.PathLess(c.prev, e.Path) {
		return fmt.Errorf("%q out of order or twice", e.Path)
	}
	c.prev = e.Path
	if !c.Tree {
		return nil
	}
	if c.N == 1 {
		if e.Path != "." || e.Kind != tree.KindDir {
			return fmt.Errorf("the tree has no root folder")
		}
		c.dirs = append(c.dirs[:0], ".")
		return nil
	}
	for len(c.dirs) > 1 && !strings.HasPrefix(e.Path, c.dirs[len(c.dirs)-1]+"/") {
		c.dirs = c.dirs[:len(c.dirs)-1]
	}
	parent := "."
	if j := strings.LastIndexByte(e.Path, '/'); j >= 0 {
		parent = e.Path[:j]
	}
	if c.dirs[len(c.dirs)-1] != parent {
		return fmt.Errorf("%q is not inside a folder of the tree", e.Path)
	}
	switch {
	case e.Kind == tree.KindDir:
		c.dirs = append(c.dirs, e.Path)
	case e.Kind == tree.KindFile && e.HardLink == "":
		if _, ok := c.targets[e.Path]; ok {
			c.targets[e.Path] = true
		}
	case e.Kind == tree.KindFile && !c.targets[e.HardLink]:
		return fmt.Errorf("%q is a hard link to %q, not a file before it", e.Path, e.HardLink)
	}
	return nil
}

// Removed checks a delta's removed paths (checkEntries' rules).
func (c *TreeCheck) Removed(paths []string) error {
	for i, p := range paths {
		if err := CheckPath(p); err != nil || p == "." {
			return fmt.Errorf("write snapshot %s: %w: removed path: bad path %q", c.id, ErrBadManifest, p)
		}
		if i > 0 && !tree.PathLess(paths[i-1], p) {
			return fmt.Errorf("write snapshot %s: %w: removed %q out of order or twice", c.id, ErrBadManifest, p)
		}
	}
	return nil
}

// LinkTargets is the set of paths entries' hard links name (none seen yet).
func LinkTargets(entries []tree.Entry) map[string]bool {
	t := map[string]bool{}
	for i := range entries {
		if l := entries[i].HardLink; l != "" {
			t[l] = false
		}
	}
	return t
}

// ScanTargets is the set of paths the hard links of a scan's tree name.
func ScanTargets(items []tree.Scanned) map[string]bool {
	t := map[string]bool{}
	for i := range items {
		if l := tree.HardLinkOf(items, i); l != "" {
			t[l] = false
		}
	}
	return t
}

// CheckDeltaTree checks the tree delta d (id, its entries and removed
// paths) makes with its base, read from the store alongside: the merged
// tree entry by entry, as checkTree does, its hard links naming targets.
func (s *Store) CheckDeltaTree(id string, d *Manifest, targets map[string]bool) error {
	base, err := s.ReadFile(d.Base, true, true)
	if err != nil {
		return fmt.Errorf("write snapshot %s: %w", id, err)
	}
	c := NewTreeCheck(id, true, targets)
	gone := make(map[string]bool, len(d.Removed))
	for _, p := range d.Removed {
		gone[p] = true
	}
	j := 0
	for i := range base.Entries {
		e := &base.Entries[i]
		for ; j < len(d.Entries) && tree.PathLess(d.Entries[j].Path, e.Path); j++ {
			if err := c.Add(&d.Entries[j]); err != nil {
				return err
			}
		}
		if j < len(d.Entries) && d.Entries[j].Path == e.Path {
			if err := c.Add(&d.Entries[j]); err != nil {
				return err
			}
			j++
			continue
		}
		if !gone[e.Path] {
			if err := c.Add(e); err != nil {
				return err
			}
		}
	}
	for ; j < len(d.Entries); j++ {
		if err := c.Add(&d.Entries[j]); err != nil {
			return err
		}
	}
	if c.N == 0 {
		return fmt.Errorf("write snapshot %s: %w: the tree has no root folder", id, ErrBadManifest)
	}
	return nil
}
