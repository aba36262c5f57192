package tree

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// errVanished is readDirOf's word for a folder that is gone (removed, or
// replaced by a file or a symlink, it or a folder above it) before or
// while it was read: it holds nothing now. The parent's listing changed
// since the save saw it, which the save's next look sees; never a
// failure.
var errVanished = errors.New("the folder vanished")

// readDirOf is readDir looking only at the names of only (nil: every name
// the folder lists): a rescan's look at the entries a change feed named.
// A folder other than the top that is gone gives errVanished, list empty.
func readDirOf(top int, root, rel string, list *[]Scanned, o Opts, only map[string]struct{}) (subdirs []string, skipped []NotKept, err error) {
	*list = (*list)[:0]
	dev, err := o.topDev(top)
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: fstat: %w", root, err)
	}
	fd, err := openFolder(top, rel, dev)
	switch {
	case rel == ".":
	case errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP):
		return nil, nil, errVanished // a symlink on the way or in its place is never followed
	case errors.Is(err, unix.EXDEV):
		// A mount its parent's listing did not show (one of the same file
		// system, or mounted since): its name is kept, nothing beneath it.
		return nil, []NotKept{{Path: rel, Why: whyMount}}, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: open: %w", folderPath(root, rel), err)
	}
	defer unix.Close(fd)
	o.Still.add(fd, root, rel) // before its names are read
	if o.Feed != nil {
		o.Feed.Watch(fd, rel)
	}
	all := *list
	grow := func(n int) { all = slices.Grow(all, n) }
	look := folderLook{fd: fd, root: root, rel: rel, dev: dev, o: &o}
	take := look.take
	add := func(f *found) {
		switch {
		case f.why != "":
			skipped = append(skipped, NotKept{Path: f.item.Rel, Why: f.why})
		case f.keep:
			if f.item.Id.Mode&unix.S_IFMT == unix.S_IFDIR {
				subdirs = append(subdirs, f.item.Rel)
			}
			all = append(all, f.item)
		}
	}
	if only != nil {
		err = statNames(fd, only, take, add)
	} else {
		err = statEntries(fd, grow, take, add)
	}
	if lf := (lstatFailed{}); errors.As(err, &lf) {
		return nil, nil, lf.err
	}
	if rel != "." && errors.Is(err, unix.ENOENT) {
		// Removed after it was opened (Linux reads a removed folder as
		// ENOENT): vanished, as if it had been before the open.
		return nil, nil, errVanished
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read folder %s: %w", folderPath(root, rel), err)
	}
	if cmp := func(a, b Scanned) int { return strings.Compare(a.Rel, b.Rel) }; !slices.IsSortedFunc(all, cmp) {
		slices.SortFunc(all, cmp) // a folder written in name order is listed sorted on tmpfs
	}
	*list = all
	return subdirs, skipped, nil
}

// statNames gives take each of names (sorted) in folder fd, lstat'ed, and
// add what it takes.
func statNames(fd int, names map[string]struct{}, take func(name []byte, st *unix.Stat_t, err error) (found, error), add func(*found)) error {
	return statEach(fd, SortedKeys(names), take, add)
}

// folderLook is readDirOf's look at one folder: fd open on it, rel its
// path under root, dev the disk's device.
type folderLook struct {
	fd        int
	root, rel string
	dev       uint64
	o         *Opts
}

// take is what readDirOf keeps of name n in the folder (lstat'ed: s, err):
// an entry, one not kept with why, or nothing (reserved, or deleted while
// it was looked at).
func (l folderLook) take(n []byte, s *unix.Stat_t, err error) (found, error) {
	mount := err == errMountRoot
	if mount {
		err = nil
	}
	if errors.Is(err, unix.ENOENT) {
		return found{}, nil // deleted while we looked: not part of this save
	}
	if err != nil {
		return found{}, lstatFailed{fmt.Errorf("lstat %s: %w", filepath.Join(folderPath(l.root, l.rel), string(n)), err)}
	}
	var r string
	if l.rel == "." {
		if r = string(n); IsReserved(l.fd, r, s, l.o.KeepLF) && !(l.o.Caches && r == ramdisk.FallbackLink) {
			return found{}, nil
		}
	} else {
		r = l.rel + "/" + string(n)
	}
	if mount || s.Mode&unix.S_IFMT == unix.S_IFDIR && uint64(s.Dev) != l.dev {
		return found{item: Scanned{Rel: r}, why: whyMount}, nil // never entered
	}
	switch s.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if s.Nlink > 1 {
			l.o.Still.addFile(l.fd, n, s)
		}
	case unix.S_IFLNK, unix.S_IFIFO, unix.S_IFDIR:
	case unix.S_IFSOCK:
		return found{item: Scanned{Rel: r}, why: "a socket: only the process serving it can make it again"}, nil
	default:
		return found{item: Scanned{Rel: r}, why: "a device node: not contents"}, nil
	}
	return found{item: scannedOf(r, s), keep: true}, nil
}
