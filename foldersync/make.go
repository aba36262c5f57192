package foldersync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// Making a version, both ways: the disk's from the store into the folder
// (a write-back), the folder's onto the disk (the load, a refresh).

// version is a new version of a path: its kind, its bytes (a file's,
// written by fill into the new file, or by create's copy hook, or shared
// with a name that holds them; a symlink's target) and its metadata.
type version struct {
	kind    tree.Kind
	link    string
	fill    func(out int) error
	create  func(pfd int, name string) (int, error) // a file made by a copy hook (stage)
	links   []linkFrom                              // names a file may be made a hard link of instead
	release func()                                  // once it is made
	meta
}

// meta is what a version of a path gets besides its bytes; the zero value
// changes nothing.
type meta struct {
	chown    bool
	uid, gid int // -1: kept
	setMode  bool
	mode     uint32
	xattrs   map[string][]byte // set where the entry's differ
	drop     []string          // removed
	flags    tree.FileFlags    // a new file's (nodump)
	times    *[2]unix.Timespec // access and modification
}

// errSourceMoved: the source's version changed while it was copied; the
// path is left for the next run.
var errSourceMoved = errors.New("changed while it was copied")

// makeAt makes v as name in the folder pfd, never following a symlink,
// and returns the inode made: a folder (mode 0700, the rest of its
// metadata set once what it holds is in), a symlink, a FIFO, or a file
// created exclusively with mode 0600 and filled; each is given its
// metadata before anyone can reach it by a name of its own, and a file is
// flushed (durable) before its times are set.
func makeAt(pfd int, name string, v *version, durable bool, note func(string)) (uint64, error) {
	fd := -1
	var err error
	switch v.kind {
	case tree.KindDir:
		err = unix.Mkdirat(pfd, name, 0o700)
	case tree.KindSymlink:
		err = unix.Symlinkat(v.link, pfd, name)
	case tree.KindFIFO:
		err = tree.MkfifoIn(pfd, name)
	case tree.KindFile:
		if v.create != nil {
			fd, err = v.create(pfd, name)
		} else {
			fd, err = unix.Openat(pfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		}
	default:
		err = fmt.Errorf("unknown kind %d", v.kind)
	}
	if err == nil && fd < 0 && v.kind != tree.KindSymlink {
		fd, err = openMade(pfd, name, v.kind)
	}
	if err != nil {
		return 0, err
	}
	var st unix.Stat_t
	if fd >= 0 {
		defer unix.Close(fd)
		err = unix.Fstat(fd, &st)
	} else {
		err = unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	if err != nil {
		return 0, err
	}
	if v.kind == tree.KindFile {
		if err := v.fill(fd); err != nil {
			return uint64(st.Ino), err
		}
	}
	m := v.meta
	m.times = nil
	if v.kind == tree.KindDir {
		m = meta{chown: m.chown, uid: m.uid, gid: m.gid} // the rest once it is filled (dirMeta)
	}
	if _, err := m.set(pfd, name, fd, nil, note); err != nil {
		return uint64(st.Ino), err
	}
	if v.kind == tree.KindFile && durable {
		if err := tree.FileFlush(fd); err != nil {
			return uint64(st.Ino), err
		}
	}
	if v.kind != tree.KindDir && v.times != nil {
		(&meta{times: v.times}).set(pfd, name, -1, nil, note)
	}
	return uint64(st.Ino), nil
}

// openMade opens the folder or FIFO just made as name in pfd, never
// following a symlink, and checks it is one.
func openMade(pfd int, name string, kind tree.Kind) (int, error) {
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || tree.KindOf(uint32(st.Mode)) != kind {
		unix.Close(fd)
		return -1, fmt.Errorf("%s: %w", name, tree.ErrReplaced)
	}
	return fd, nil
}

// set gives the entry name in the folder pfd (open as fd; -1: a symlink,
// set by its name; a folder is given as fd, ".", fd) m's metadata where
// it differs from st (nil: a new entry, all of it), in the order that
// keeps each: the owner first (a chown clears setuid, setgid and
// capabilities), then xattrs, mode, flags, and the times last. It notes
// what it could not set, but the mode, whose failure it returns, and
// reports whether it changed anything.
func (m *meta) set(pfd int, name string, fd int, st *unix.Stat_t, note func(string)) (bool, error) {
	changed := false
	if m.chown && (st == nil || m.uid >= 0 && uint32(m.uid) != st.Uid || m.gid >= 0 && uint32(m.gid) != st.Gid) {
		var err error
		if fd >= 0 {
			err = unix.Fchown(fd, m.uid, m.gid)
		} else {
			err = unix.Fchownat(pfd, name, m.uid, m.gid, unix.AT_SYMLINK_NOFOLLOW)
		}
		if err != nil {
			note(fmt.Sprintf("owner not set (%v)", err))
		}
		changed = err == nil
	}
	if fd >= 0 {
		changed = m.setXattrs(fd, st != nil, note) || changed
		if m.setMode && (st == nil || changed || uint32(st.Mode)&0o7777 != m.mode) {
			if err := unix.Fchmod(fd, m.mode); err != nil {
				return changed, err
			}
			changed = true
		}
		if st == nil {
			tree.PassFlags(fd, m.flags)
		}
	}
	if m.times != nil && (st == nil || tree.StatAtime(st) != m.times[0] || tree.StatMtime(st) != m.times[1]) {
		if err := unix.UtimesNanoAt(pfd, name, m.times[:], unix.AT_SYMLINK_NOFOLLOW); err != nil {
			note(fmt.Sprintf("times not set (%v)", err))
		} else {
			changed = true
		}
	}
	return changed, nil
}

// setXattrs sets m's xattrs on fd where they differ (inPlace: from what
// it holds) and removes m.drop, and reports whether it changed any.
func (m *meta) setXattrs(fd int, inPlace bool, note func(string)) bool {
	if len(m.xattrs) == 0 && len(m.drop) == 0 {
		return false
	}
	var have map[string][]byte
	if inPlace {
		have, _ = tree.FdXattrs(fd)
	}
	changed := false
	for _, k := range m.drop {
		if _, ok := have[k]; !ok {
			continue
		}
		if err := unix.Fremovexattr(fd, k); err != nil {
			note(fmt.Sprintf("xattr %s not removed (%v)", k, err))
			continue
		}
		changed = true
	}
	for _, k := range tree.SortedKeys(m.xattrs) {
		if v, ok := have[k]; ok && string(v) == string(m.xattrs[k]) {
			continue
		}
		if err := unix.Fsetxattr(fd, k, m.xattrs[k], 0); err != nil {
			note(fmt.Sprintf("xattr %s not set (%v)", k, err))
			continue
		}
		changed = true
	}
	return changed
}

// timesOf is st's access and modification times.
func timesOf(st *unix.Stat_t) *[2]unix.Timespec {
	return &[2]unix.Timespec{tree.StatAtime(st), tree.StatMtime(st)}
}

// contentXattrs are the xattrs of fd that are contents (not RAMBar's mark
// on a disk's top, nor the system's own).
func contentXattrs(fd int) map[string][]byte {
	x, _ := tree.FdXattrs(fd)
	tree.DropMarkAttrs(x)
	maps.DeleteFunc(x, func(k string, _ []byte) bool { return !tree.XattrIsContent(k) })
	return x
}

// folderMeta is the metadata a folder entry e (open as fd, -1: none) is
// copied with: its owner (as root), mode, content xattrs, access and
// modification times.
func folderMeta(e *tree.FsEntry, fd int, root bool) meta {
	m := meta{chown: root, uid: int(e.St.Uid), gid: int(e.St.Gid), setMode: true, mode: uint32(e.St.Mode) & 0o7777, times: timesOf(&e.St)}
	if fd >= 0 {
		m.xattrs = contentXattrs(fd)
	}
	return m
}

// folderFile fills a new file with the bytes of the folder's file e, open
// as in (holes kept), and checks them against their hash want, when it is
// known; sum is what was copied.
type folderFile struct {
	in   int
	e    *tree.FsEntry
	want *tree.FileSum
	sum  tree.FileSum
}

func (f *folderFile) fill(out int) error {
	h := tree.NewHash()
	var err error
	if int64(f.e.St.Blocks)*512 < f.e.St.Size {
		err = copyHoles(out, f.in, h)
	} else {
		err = tree.ReadAll(f.in, 0, -1, tree.TeeWriter{H: h, FD: out})
	}
	if err != nil {
		return err
	}
	if f.sum = tree.SumOf(h); f.want != nil && *f.want != f.sum {
		return errSourceMoved
	}
	return nil
}

// hooked is fill for a file a copy hook wrote (out): its bytes must be
// the folder file's, read by its descriptor (never by the path the hook
// was given, which a symlink swapped in may redirect).
func (f *folderFile) hooked(out int) error {
	var err error
	if f.sum, err = tree.HashFd(out); err != nil {
		return err
	}
	want := f.want
	if want == nil {
		h, err := tree.HashFd(f.in)
		if err != nil {
			return err
		}
		want = &h
	}
	if *want != f.sum {
		return errSourceMoved
	}
	return nil
}

// copyHoles copies a sparse file's data ranges to out at their offsets,
// leaving its holes holes, and feeds h its whole content (zeros for the
// holes). A file system that cannot tell its ranges gets a whole copy.
func copyHoles(out, in int, h io.Writer) error {
	ext, size, err := tree.DataExtents(in)
	if err != nil {
		return tree.ReadAll(in, 0, -1, tree.TeeWriter{H: h, FD: out})
	}
	pos := int64(0)
	for _, x := range ext {
		if err := tree.Zeros(h, x.Off-pos); err != nil {
			return err
		}
		if _, err := unix.Seek(out, x.Off, unix.SEEK_SET); err != nil {
			return err
		}
		if err := tree.ReadAll(in, x.Off, x.Len, tree.TeeWriter{H: h, FD: out}); err != nil {
			return err
		}
		pos = x.Off + x.Len
	}
	if err := tree.Zeros(h, size-pos); err != nil {
		return err
	}
	return tree.RetryEINTR(func() error { return unix.Ftruncate(out, size) })
}

// stage is where a copy hook (Keeper.CopyFile: ditto on macOS, which
// takes paths) writes a file onto the disk: one temporary name at the
// disk's top (listed with the run's others), so that the only path the
// hook writes through is the disk's mount point and that name; the file
// is then moved, by descriptors, under its own name in its own folder.
type stage struct {
	ctx   context.Context
	fn    tree.CopyFunc
	top   string
	topfd int
	name  string
}

// version is how f (the folder's file at path src) is made through the
// hook, or nil when there is none.
func (s *stage) version(f *folderFile, src string, m meta) *version {
	v := &version{kind: tree.KindFile, fill: f.fill, meta: m}
	if s == nil || s.fn == nil {
		return v
	}
	v.fill = f.hooked
	v.create = func(pfd int, name string) (int, error) {
		if err := s.fn(s.ctx, src, filepath.Join(s.top, s.name)); err != nil {
			return -1, fmt.Errorf("copy %s: %w", src, err)
		}
		fd, err := tree.OpenFileAt(s.topfd, s.name, nil)
		if err != nil {
			return -1, err
		}
		if err := tree.RenameNoReplace(s.topfd, s.name, pfd, name); err != nil {
			unix.Close(fd)
			return -1, err
		}
		return fd, nil
	}
	v.xattrs = nil // the hook copies them
	return v
}
