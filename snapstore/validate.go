package snapstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"rambar/tree"
)

// A store is untrusted input: anyone able to write the data folder may
// craft one. Every manifest and index is checked when it is read, before
// any of it is used: IDs have the one form newID makes, paths are clean
// and relative and in order, every object reference stays inside objects/,
// and counts and sizes are bounded.
const (
	MaxFile  = 1 << 30   // bytes of a manifest or the index (about 20 million paths)
	MaxSmall = 1 << 20   // bytes of current, state.json, last.json, the marker
	maxPath  = 4096      // bytes of a path
	MaxName  = 255       // bytes of a path component or xattr name
	maxValue = 64 << 20  // bytes of an xattr value
	maxSize  = 1 << 50   // bytes of a file
	maxCount = 100 << 20 // entries, removed paths, objects of one save
)

// ReadBounded reads the regular file path (not through a symlink at its
// end), refusing one larger than max before reading it.
func ReadBounded(path string, max int64) ([]byte, error) {
	b, _, err := ReadPrefix(path, max, max)
	return b, err
}

// ReadPrefix is readBounded that reads at most the first limit bytes;
// whole reports whether that was all of the file.
func ReadPrefix(path string, max, limit int64) (b []byte, whole bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, false, fmt.Errorf("%s: not a regular file of at most %d bytes", path, max)
	}
	b = make([]byte, min(fi.Size(), limit))
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, false, err
	}
	return b[:n], int64(n) == fi.Size(), nil
}

// ValidID reports whether id has newID's form: 20060102T150405.000000Z.
func ValidID(id string) bool {
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

// CheckPath refuses a path that is not "." or clean and relative: no
// empty, ".", or ".." component, no leading or trailing slash, no NUL.
func CheckPath(p string) error {
	if p != "." && !cleanFrom([]byte(p), 0) {
		return fmt.Errorf("bad path %q", p)
	}
	return nil
}

// cleanFrom is checkPath's rule for a path other than "." whose components
// before from (0, or just after a slash) are known to be clean: the index
// checks only what each path adds to the one before it.
func cleanFrom(p []byte, from int) bool {
	if len(p) == 0 || len(p) > maxPath || bytes.IndexByte(p[from:], 0) >= 0 {
		return false
	}
	for rest := p[from:]; ; {
		c, more, found := bytes.Cut(rest, slash)
		if len(c) == 0 || len(c) > MaxName || (c[0] == '.' && (len(c) == 1 || (len(c) == 2 && c[1] == '.'))) {
			return false
		}
		if !found {
			return true
		}
		rest = more
	}
}

var slash = []byte{'/'}

// checkEntry checks one manifest entry on its own.
func checkEntry(e *tree.Entry) error {
	if err := CheckPath(e.Path); err != nil {
		return err
	}
	switch e.Kind {
	case tree.KindFile:
		if e.Size < 0 || e.Size > maxSize {
			return fmt.Errorf("%s: bad size %d", e.Path, e.Size)
		}
		if err := checkData(e); err != nil {
			return err
		}
	case tree.KindDir, tree.KindSymlink, tree.KindFIFO:
		if !e.Obj.None() || e.Size != 0 || e.HardLink != "" || e.Extents != nil {
			return fmt.Errorf("%s: a folder, link or FIFO with contents", e.Path)
		}
	default:
		return fmt.Errorf("%s: unknown kind %d", e.Path, e.Kind)
	}
	if e.MTime.Nsec < 0 || e.MTime.Nsec >= 1e9 || e.ATime.Nsec < 0 || e.ATime.Nsec >= 1e9 {
		return fmt.Errorf("%s: bad time", e.Path)
	}
	if e.Kind == tree.KindSymlink && (e.Link == "" || len(e.Link) > maxPath || strings.IndexByte(e.Link, 0) >= 0) {
		return fmt.Errorf("%s: bad link target", e.Path)
	}
	if e.Kind != tree.KindSymlink && e.Link != "" {
		return fmt.Errorf("%s: a symlink target on something else", e.Path)
	}
	if e.Path == "." && e.Kind != tree.KindDir {
		return fmt.Errorf("the root is not a folder")
	}
	if e.Mode&^0o7777 != 0 {
		return fmt.Errorf("%s: bad mode %o", e.Path, e.Mode)
	}
	for k, v := range e.Xattr {
		if k == "" || len(k) > MaxName || strings.IndexByte(k, 0) >= 0 || len(v) > maxValue {
			return fmt.Errorf("%s: bad extended attribute %q", e.Path, k)
		}
	}
	return nil
}

// checkData checks where a file's bytes are: an object, or (a hard link)
// another file; and that its extents are in order inside the file.
func checkData(e *tree.Entry) error {
	if e.HardLink != "" {
		if !e.Obj.None() || e.Extents != nil || CheckPath(e.HardLink) != nil || e.HardLink == "." {
			return fmt.Errorf("%s: bad hard link %q", e.Path, e.HardLink)
		}
		return nil
	}
	if err := CheckObj(e.Obj); err != nil {
		return fmt.Errorf("%s: %w", e.Path, err)
	}
	if len(e.Extents) > maxCount {
		return fmt.Errorf("%s: too many extents", e.Path)
	}
	end := int64(0)
	for _, x := range e.Extents {
		if x.Off < end || x.Len <= 0 || x.Len > e.Size || x.Off > e.Size-x.Len {
			return fmt.Errorf("%s: bad extent %d+%d", e.Path, x.Off, x.Len)
		}
		end = x.Off + x.Len
	}
	return nil
}

// CheckHeader checks a manifest's header.
func CheckHeader(h *Header) error {
	if !ValidID(h.ID) {
		return fmt.Errorf("bad snapshot ID %q", h.ID)
	}
	if h.Base != "" && (!ValidID(h.Base) || h.Base >= h.ID) {
		return fmt.Errorf("snapshot %s: bad base %q", h.ID, h.Base)
	}
	if h.Files < 0 || h.Files > maxCount || h.Bytes < 0 {
		return fmt.Errorf("snapshot %s: bad counts", h.ID)
	}
	for save, nums := range h.Refs {
		if !ValidID(save) || len(nums) > maxCount {
			return fmt.Errorf("snapshot %s: bad object folder %q", h.ID, save)
		}
	}
	return nil
}

// checkEntries checks a manifest's entries and removed paths as read: each
// entry on its own, and both lists in strict pathLess order (so no path
// twice).
func checkEntries(m *Manifest) error {
	if len(m.Entries) > maxCount || len(m.Removed) > maxCount {
		return fmt.Errorf("snapshot %s: too many entries", m.ID)
	}
	for i := range m.Entries {
		if err := checkEntry(&m.Entries[i]); err != nil {
			return fmt.Errorf("snapshot %s: %w", m.ID, err)
		}
		if i > 0 && !tree.PathLess(m.Entries[i-1].Path, m.Entries[i].Path) {
			return fmt.Errorf("snapshot %s: %q out of order or twice", m.ID, m.Entries[i].Path)
		}
	}
	for i, p := range m.Removed {
		if err := CheckPath(p); err != nil || p == "." {
			return fmt.Errorf("snapshot %s: removed path: bad path %q", m.ID, p)
		}
		if i > 0 && !tree.PathLess(m.Removed[i-1], p) {
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
func checkTree(entries []tree.Entry) error {
	if len(entries) == 0 || entries[0].Path != "." || entries[0].Kind != tree.KindDir {
		return fmt.Errorf("the tree has no root folder")
	}
	dirs := map[string]bool{".": true}
	files := map[string]bool{} // files with data of their own
	for i := 1; i < len(entries); i++ {
		e := &entries[i]
		parent := "."
		if j := strings.LastIndexByte(e.Path, '/'); j >= 0 {
			parent = e.Path[:j]
		}
		if !dirs[parent] {
			return fmt.Errorf("%q is not inside a folder of the tree", e.Path)
		}
		switch {
		case e.Kind == tree.KindDir:
			dirs[e.Path] = true
		case e.Kind == tree.KindFile && e.HardLink == "":
			files[e.Path] = true
		case e.Kind == tree.KindFile && !files[e.HardLink]:
			return fmt.Errorf("%q is a hard link to %q, not a file before it", e.Path, e.HardLink)
		}
	}
	return nil
}
