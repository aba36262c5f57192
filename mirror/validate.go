package mirror

import (
	"fmt"
	"strings"
)

// A store is untrusted input: anyone able to write the data folder may
// craft one. Every manifest and index is checked when it is read, before
// any of it is used: IDs have the one form newID makes, paths are clean
// and relative and in order, every object reference stays inside objects/,
// and counts and sizes are bounded.
const (
	maxPath  = 4096      // bytes of a path
	maxName  = 255       // bytes of a path component or xattr name
	maxValue = 64 << 20  // bytes of an xattr value
	maxSize  = 1 << 50   // bytes of a file
	maxCount = 100 << 20 // entries, removed paths, objects of one save
)

// validID reports whether id has newID's form: 20060102T150405.000000Z.
func validID(id string) bool {
	if len(id) != 23 || id[8] != 'T' || id[15] != '.' || id[22] != 'Z' {
		return false
	}
	for i := 0; i < 22; i++ {
		if i != 8 && i != 15 && (id[i] < '0' || id[i] > '9') {
			return false
		}
	}
	return true
}

// checkPath refuses a path that is not "." or clean and relative: no
// empty, ".", or ".." component, no leading or trailing slash, no NUL.
func checkPath(p string) error {
	if p == "." {
		return nil
	}
	if p == "" || len(p) > maxPath || strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("bad path %q", p)
	}
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." || len(c) > maxName {
			return fmt.Errorf("bad path %q", p)
		}
	}
	return nil
}

// checkEntry checks one manifest entry on its own.
func checkEntry(e *Entry) error {
	if err := checkPath(e.Path); err != nil {
		return err
	}
	switch e.Kind {
	case KindFile:
		if e.Size < 0 || e.Size > maxSize {
			return fmt.Errorf("%s: bad size %d", e.Path, e.Size)
		}
		if _, err := parseObj(e.Obj); err != nil {
			return fmt.Errorf("%s: %w", e.Path, err)
		}
	case KindDir, KindSymlink:
		if e.Obj != "" || e.Size != 0 {
			return fmt.Errorf("%s: a folder or link with contents", e.Path)
		}
	default:
		return fmt.Errorf("%s: unknown kind %d", e.Path, e.Kind)
	}
	if e.Kind == KindSymlink && (e.Link == "" || len(e.Link) > maxPath || strings.IndexByte(e.Link, 0) >= 0) {
		return fmt.Errorf("%s: bad link target", e.Path)
	}
	if e.Kind != KindSymlink && e.Link != "" {
		return fmt.Errorf("%s: a link target on a %s", e.Path, map[Kind]string{KindFile: "file", KindDir: "folder"}[e.Kind])
	}
	if e.Path == "." && e.Kind != KindDir {
		return fmt.Errorf("the root is not a folder")
	}
	if e.Mode&^0o7777 != 0 {
		return fmt.Errorf("%s: bad mode %o", e.Path, e.Mode)
	}
	for k, v := range e.Xattr {
		if k == "" || len(k) > maxName || strings.IndexByte(k, 0) >= 0 || len(v) > maxValue {
			return fmt.Errorf("%s: bad extended attribute %q", e.Path, k)
		}
	}
	return nil
}

// checkHeader checks a manifest's header.
func checkHeader(h *header) error {
	if !validID(h.ID) {
		return fmt.Errorf("bad snapshot ID %q", h.ID)
	}
	if h.Base != "" && (!validID(h.Base) || h.Base >= h.ID) {
		return fmt.Errorf("snapshot %s: bad base %q", h.ID, h.Base)
	}
	if h.Files < 0 || h.Files > maxCount || h.Bytes < 0 {
		return fmt.Errorf("snapshot %s: bad counts", h.ID)
	}
	for save, nums := range h.Refs {
		if !validID(save) || len(nums) > maxCount {
			return fmt.Errorf("snapshot %s: bad object folder %q", h.ID, save)
		}
	}
	return nil
}

// checkEntries checks a manifest's entries and removed paths as read: each
// entry on its own, and both lists in strict pathLess order (so no path
// twice).
func checkEntries(m *manifest) error {
	if len(m.Entries) > maxCount || len(m.Removed) > maxCount {
		return fmt.Errorf("snapshot %s: too many entries", m.ID)
	}
	for i := range m.Entries {
		if err := checkEntry(&m.Entries[i]); err != nil {
			return fmt.Errorf("snapshot %s: %w", m.ID, err)
		}
		if i > 0 && !pathLess(m.Entries[i-1].Path, m.Entries[i].Path) {
			return fmt.Errorf("snapshot %s: %q out of order or twice", m.ID, m.Entries[i].Path)
		}
	}
	for i, p := range m.Removed {
		if err := checkPath(p); err != nil || p == "." {
			return fmt.Errorf("snapshot %s: removed path: bad path %q", m.ID, p)
		}
		if i > 0 && !pathLess(m.Removed[i-1], p) {
			return fmt.Errorf("snapshot %s: removed %q out of order or twice", m.ID, p)
		}
	}
	if m.Base == "" && len(m.Removed) > 0 {
		return fmt.Errorf("snapshot %s: a full manifest with removed paths", m.ID)
	}
	return nil
}

// checkTree checks a whole tree (a full manifest, or a delta applied to
// its base): the root first, and every other path inside a folder listed
// before it, so a restore never makes a path through anything but a
// folder it made.
func checkTree(entries []Entry) error {
	if len(entries) == 0 || entries[0].Path != "." || entries[0].Kind != KindDir {
		return fmt.Errorf("the tree has no root folder")
	}
	dirs := map[string]bool{".": true}
	for i := 1; i < len(entries); i++ {
		e := &entries[i]
		parent := "."
		if j := strings.LastIndexByte(e.Path, '/'); j >= 0 {
			parent = e.Path[:j]
		}
		if !dirs[parent] {
			return fmt.Errorf("%q is not inside a folder of the tree", e.Path)
		}
		if e.Kind == KindDir {
			dirs[e.Path] = true
		}
	}
	return nil
}
