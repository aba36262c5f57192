package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// EntryOf reads the full metadata of scanned path items[i] (xattrs, link
// target).
func EntryOf(root string, items []Scanned, i int) (Entry, error) {
	e := ScanEntry(items, i)
	x, err := ReadExtra(root, &e)
	e.Link, e.Xattr = x.Link, x.Xattr
	return e, err
}

// ScanEntry is the entry of scanned path items[i] as far as its scan
// tells: all but its xattrs and a symlink's target (readExtra).
func ScanEntry(items []Scanned, i int) Entry {
	s := &items[i]
	e := Entry{Path: s.Rel, Kind: KindOf(s.Id.Mode), Mode: s.Id.Mode & 0o7777, MTime: s.mtime(), ATime: s.atime(),
		UID: s.uid, GID: s.gid, HardLink: HardLinkOf(items, i)}
	if e.Kind == KindFile {
		e.Size = s.Id.Size
		e.Sparse, e.alloc = s.Blocks*512 < s.Id.Size, s.Blocks*512
	}
	return e
}

// Extra is what of an entry the scan does not tell: a symlink's target
// and the xattrs.
type Extra struct {
	Link  string
	Xattr map[string][]byte
}

// ReadExtra reads the target (a symlink) and xattrs of entry e of the
// tree root; an error wraps fs.ErrNotExist when e's path is gone.
func ReadExtra(root string, e *Entry) (Extra, error) {
	var x Extra
	p := filepath.Join(root, filepath.FromSlash(e.Path))
	if e.Kind == KindSymlink {
		l, err := os.Readlink(p)
		if err != nil {
			return x, fmt.Errorf("readlink %s: %w", p, err)
		}
		x.Link = l
	}
	xa, err := readXattrs(p)
	if e.Path == "." {
		DropMarkAttrs(xa) // RAMBar's mark on the disk's root is not contents
	}
	x.Xattr = xa
	return x, err
}

// Entries scans root and reads every entry's metadata.
func Entries(root string) ([]Entry, error) {
	out, _, err := EntriesAll(root)
	return out, err
}

// EntriesAll is treeEntries that also names what cannot be kept
// (sockets, device nodes).
func EntriesAll(root string) ([]Entry, []NotKept, error) {
	items, notKept, err := scanAll(root, 0)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Entry, len(items))
	for i := range items {
		if out[i], err = EntryOf(root, items, i); err != nil {
			return nil, nil, err
		}
	}
	return out, notKept, nil
}

// FilePerm is the permission of a file entry as os.Chmod takes it.
func FilePerm(e Entry) fs.FileMode { return fs.FileMode(e.Mode&0o777) | modeBits(e.Mode) }

// modeBits turns setuid, setgid and sticky of a stat mode into fs.FileMode bits.
func modeBits(m uint32) fs.FileMode {
	var f fs.FileMode
	if m&unix.S_ISUID != 0 {
		f |= fs.ModeSetuid
	}
	if m&unix.S_ISGID != 0 {
		f |= fs.ModeSetgid
	}
	if m&unix.S_ISVTX != 0 {
		f |= fs.ModeSticky
	}
	return f
}

// unixMode converts permission bits with setuid, setgid and sticky to
// chmod(2)'s mode.
func unixMode(perm fs.FileMode) uint32 {
	m := uint32(perm.Perm())
	if perm&fs.ModeSetuid != 0 {
		m |= unix.S_ISUID
	}
	if perm&fs.ModeSetgid != 0 {
		m |= unix.S_ISGID
	}
	if perm&fs.ModeSticky != 0 {
		m |= unix.S_ISVTX
	}
	return m
}

// readXattrs returns p's extended attributes (not following symlinks),
// those xattrIsContent keeps.
func readXattrs(p string) (map[string][]byte, error) {
	names, err := ListXattrs(p)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	out := map[string][]byte{}
	for _, name := range names {
		if !XattrIsContent(name) {
			continue
		}
		v, ok, err := GetXattr(p, name)
		if err != nil {
			return nil, err
		}
		if ok {
			out[name] = v
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// ListXattrs lists p's attribute names; none where the file system has none.
func ListXattrs(p string) ([]string, error) {
	buf := make([]byte, 1024)
	for {
		n, err := unix.Llistxattr(p, buf)
		if errors.Is(err, unix.ERANGE) {
			buf = make([]byte, len(buf)*4)
			continue
		}
		if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EPERM) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list xattrs of %s: %w", p, err)
		}
		var names []string
		for _, name := range strings.Split(string(buf[:n]), "\x00") {
			if name != "" {
				names = append(names, name)
			}
		}
		return names, nil
	}
}

// GetXattr reads one attribute; ok is false when it vanished meanwhile.
func GetXattr(p, name string) (v []byte, ok bool, err error) {
	val := make([]byte, 256)
	for {
		m, err := unix.Lgetxattr(p, name, val)
		if errors.Is(err, unix.ERANGE) {
			val = make([]byte, len(val)*8)
			continue
		}
		if errors.Is(err, errNoAttr) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, fmt.Errorf("read xattr %s of %s: %w", name, p, err)
		}
		return append([]byte(nil), val[:m]...), true, nil
	}
}
