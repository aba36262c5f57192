package mirror

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// entryOf reads the full metadata of scanned path items[i] (xattrs, link
// target).
func entryOf(root string, items []scanned, i int) (Entry, error) {
	s := &items[i]
	p := filepath.Join(root, filepath.FromSlash(s.rel))
	e := Entry{Path: s.rel, Kind: kindOf(s.id.Mode), Mode: s.id.Mode & 0o7777, MTime: s.mtime(), ATime: s.atime(),
		UID: s.uid, GID: s.gid, HardLink: hardLinkOf(items, i)}
	switch e.Kind {
	case KindFile:
		e.Size = s.id.Size
		e.sparse, e.alloc = s.blocks*512 < s.id.Size, s.blocks*512
	case KindSymlink:
		l, err := os.Readlink(p)
		if err != nil {
			return e, fmt.Errorf("readlink %s: %w", p, err)
		}
		e.Link = l
	}
	x, err := readXattrs(p)
	if err != nil {
		return e, err
	}
	if s.rel == "." {
		dropMarkAttrs(x) // RAMBar's mark on the disk's root is not contents
	}
	e.Xattr = x
	return e, nil
}

// treeEntries scans root and reads every entry's metadata.
func treeEntries(root string) ([]Entry, error) {
	out, _, err := treeEntriesAll(root)
	return out, err
}

// treeEntriesAll is treeEntries that also names what cannot be kept
// (sockets, device nodes).
func treeEntriesAll(root string) ([]Entry, []NotKept, error) {
	items, notKept, err := scanAll(root, 0)
	if err != nil {
		return nil, nil, err
	}
	out := make([]Entry, len(items))
	for i := range items {
		if out[i], err = entryOf(root, items, i); err != nil {
			return nil, nil, err
		}
	}
	return out, notKept, nil
}

// filePerm is the permission of a file entry as os.Chmod takes it.
func filePerm(e Entry) fs.FileMode { return fs.FileMode(e.Mode&0o777) | modeBits(e.Mode) }

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
	names, err := listXattrs(p)
	if err != nil || len(names) == 0 {
		return nil, err
	}
	out := map[string][]byte{}
	for _, name := range names {
		if !xattrIsContent(name) {
			continue
		}
		v, ok, err := getXattr(p, name)
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

// listXattrs lists p's attribute names; none where the file system has none.
func listXattrs(p string) ([]string, error) {
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

// getXattr reads one attribute; ok is false when it vanished meanwhile.
func getXattr(p, name string) (v []byte, ok bool, err error) {
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
