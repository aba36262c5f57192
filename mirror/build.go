package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// builder makes a write-back's new tree inside the private staging folder,
// every entry relative to its parent's descriptor: the folder's own
// entries are hard-linked from the old tree (so they keep their inode,
// owner, ACLs, xattrs and times), the disk's versions are copied from the
// store and checked against their hash, and folders get their metadata
// once their contents are in.
type builder struct {
	openObj func(Entry) (int, objRef, error) // opens a disk entry's bytes in the store
	owner   owner                            // who owns what the disk adds
	notKept []string
	inos    map[string]uint64 // the inode each new path got, for the record
	files   int               // files written (each flushed once)
	flushes int               // commitFlush calls (one per write-back)
}

// owner is the ownership given to paths the folder did not have: the
// invoking user under sudo, the folder's owner as root, unset otherwise.
type owner struct{ uid, gid int }

// newOwner decides the owner for new paths of a folder owned by uid:gid.
func newOwner(uid, gid uint32) owner {
	if os.Geteuid() != 0 {
		return owner{-1, -1}
	}
	if u, err := strconv.Atoi(os.Getenv("SUDO_UID")); err == nil && u > 0 {
		g, err := strconv.Atoi(os.Getenv("SUDO_GID"))
		if err != nil {
			g = -1
		}
		return owner{u, g}
	}
	return owner{int(uid), int(gid)}
}

// level is one folder on the path being built: its descriptor in the new
// tree and, when the folder had it, in the old one.
type level struct {
	rel    string
	newfd  int
	oldfd  int
	it     *planItem
	closer bool
}

// build makes items (pathLess order, "." first) under newRoot, reading the
// folder's entries under oldRoot.
func (b *builder) build(ctx context.Context, newRoot, oldRoot int, items []*planItem) error {
	b.inos = map[string]uint64{}
	stack := []level{{rel: ".", newfd: newRoot, oldfd: oldRoot, it: items[0]}}
	pop := func() error {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		err := b.dirMeta(top)
		if top.closer {
			unix.Close(top.newfd)
			if top.oldfd >= 0 {
				unix.Close(top.oldfd)
			}
		}
		return err
	}
	defer func() {
		for len(stack) > 1 {
			pop()
		}
	}()
	for _, it := range items[1:] {
		if err := ctx.Err(); err != nil {
			return err
		}
		dir, name := splitRel(it.Path)
		for stack[len(stack)-1].rel != dir {
			if len(stack) == 1 {
				return fmt.Errorf("write-back plan out of order at %s", it.Path)
			}
			if err := pop(); err != nil {
				return err
			}
		}
		top := stack[len(stack)-1]
		if it.From == makeDir {
			lv, err := b.mkdir(top, name, it)
			if err != nil {
				return err
			}
			stack = append(stack, lv)
			continue
		}
		if err := b.entry(top, name, it); err != nil {
			return fmt.Errorf("write %s: %w", it.Path, err)
		}
	}
	for len(stack) > 1 {
		if err := pop(); err != nil {
			return err
		}
	}
	return b.dirMeta(stack[0])
}

func (b *builder) mkdir(top level, name string, it *planItem) (level, error) {
	if err := unix.Mkdirat(top.newfd, name, 0o700); err != nil {
		return level{}, noSpace(fmt.Errorf("make folder %s: %w", it.Path, err))
	}
	fd, err := openDirAt(top.newfd, name)
	if err != nil {
		return level{}, fmt.Errorf("open folder %s: %w", it.Path, err)
	}
	var st unix.Stat_t
	unix.Fstat(fd, &st)
	b.inos[it.Path] = uint64(st.Ino)
	lv := level{rel: it.Path, newfd: fd, oldfd: -1, it: it, closer: true}
	if it.F != nil && it.F.e.isDir() && top.oldfd >= 0 {
		if old, err := openDirAt(top.oldfd, name); err == nil {
			var ost unix.Stat_t
			if unix.Fstat(old, &ost) == nil && ost.Ino == it.F.e.st.Ino && ost.Dev == it.F.e.st.Dev {
				lv.oldfd = old
			} else {
				unix.Close(old)
			}
		}
	}
	return lv, nil
}

// entry makes one file, link or other non-folder entry.
func (b *builder) entry(top level, name string, it *planItem) error {
	if it.From == fromFolder {
		return b.link(top, name, it)
	}
	d := it.D
	switch d.Kind {
	case KindSymlink:
		if err := unix.Symlinkat(d.Link, top.newfd, name); err != nil {
			return noSpace(err)
		}
		b.chownAt(top.newfd, name, it)
		b.timesAt(top.newfd, name, tsNano(d.MTime))
		return nil
	case KindFile:
		return b.copyFromStore(top, name, it)
	case KindFIFO:
		if err := mkfifoIn(top.newfd, name); err != nil {
			b.notKept = append(b.notKept, fmt.Sprintf("FIFO %s (%v)", it.Path, err))
			return nil
		}
		b.chownAt(top.newfd, name, it)
		if err := unix.Fchmodat(top.newfd, name, it.Mode, 0); err != nil {
			return fmt.Errorf("chmod: %w", err)
		}
		b.timesAt(top.newfd, name, tsNano(d.MTime))
		return nil
	}
	return fmt.Errorf("unknown kind %d", d.Kind)
}

// link hard-links the folder's own entry, keeping everything it has.
func (b *builder) link(top level, name string, it *planItem) error {
	_, srcName := splitRel(it.Src)
	if top.oldfd < 0 {
		return fmt.Errorf("its folder is not in the old tree")
	}
	err := unix.Linkat(top.oldfd, srcName, top.newfd, name, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // deleted outside meanwhile: stays deleted
	}
	if errors.Is(err, unix.EPERM) && it.F.e.isReg() {
		// protected_hardlinks: a file of another user; copied instead.
		return b.copyOwn(top, srcName, name, it)
	}
	if err != nil {
		return noSpace(fmt.Errorf("link the folder's own file: %w", err))
	}
	var st unix.Stat_t
	if unix.Fstatat(top.newfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		b.inos[it.Path] = uint64(st.Ino)
		if st.Mode&unix.S_IFMT != unix.S_IFLNK && uint32(st.Mode)&0o7777 != it.Mode {
			if err := unix.Fchmodat(top.newfd, name, it.Mode, 0); err != nil {
				return fmt.Errorf("chmod: %w", err)
			}
		}
	}
	return nil
}

// copyOwn copies the folder's own file (where it cannot be linked), with
// its mode, xattrs and time; its owner and inode cannot be kept.
func (b *builder) copyOwn(top level, srcName, name string, it *planItem) error {
	in, err := openFileAt(top.oldfd, srcName, &it.F.e.st)
	if err != nil {
		return err
	}
	defer unix.Close(in)
	out, err := unix.Openat(top.newfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return noSpace(err)
	}
	defer unix.Close(out)
	if err := readAll(in, 0, -1, teeWriter{io.Discard, out}); err != nil {
		return noSpace(err)
	}
	x, _ := fdXattrs(in)
	for k, v := range x {
		if unix.Fsetxattr(out, k, v, 0) != nil {
			b.notKept = append(b.notKept, fmt.Sprintf("xattr %s of %s", k, it.Path))
		}
	}
	if err := unix.Fchmod(out, it.Mode); err != nil {
		return fmt.Errorf("chmod: %w", err)
	}
	if err := fileFlush(out); err != nil {
		return noSpace(err)
	}
	var st unix.Stat_t
	unix.Fstat(out, &st)
	b.inos[it.Path] = uint64(st.Ino)
	b.files++
	b.notKept = append(b.notKept, "owner of "+it.Path+" (copied: it could not be linked)")
	b.timesAt(top.newfd, name, tsNano(statMtime(&it.F.e.st)))
	return nil
}

// copyFromStore writes the disk's version of a file, checking its hash.
func (b *builder) copyFromStore(top level, name string, it *planItem) error {
	in, ref, err := b.openObj(*it.D)
	if err != nil {
		return fmt.Errorf("open the store's copy: %w", err)
	}
	defer unix.Close(in)
	out, err := unix.Openat(top.newfd, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return noSpace(err)
	}
	defer unix.Close(out)
	// Holes stay holes (a sparse file's object holds its data ranges).
	if _, err := restoreData(out, in, ref, *it.D, false); err != nil {
		return noSpace(err)
	}
	if sum, err := hashFd(out); err != nil || (it.Hash != "" && sum != it.Hash) {
		return fmt.Errorf("the store's copy does not match its hash (%v): %w", err, errBadManifest)
	}
	var st unix.Stat_t
	unix.Fstat(out, &st)
	b.inos[it.Path] = uint64(st.Ino)
	b.chownFd(out, it)
	var fx map[string][]byte
	if it.F != nil && it.F.e.isReg() && top.oldfd >= 0 {
		if old, err := openFileAt(top.oldfd, name, &it.F.e.st); err == nil {
			fx, _ = fdXattrs(old)
			unix.Close(old)
		}
	}
	b.xattrsFd(out, it, fx)
	if err := unix.Fchmod(out, it.Mode); err != nil {
		return fmt.Errorf("chmod: %w", err)
	}
	if err := fileFlush(out); err != nil {
		return noSpace(err)
	}
	b.files++
	b.timesAt(top.newfd, name, tsNano(it.D.MTime))
	return nil
}

// dirMeta gives a finished folder its owner, xattrs, mode and time.
func (b *builder) dirMeta(lv level) error {
	it := lv.it
	b.chownFd(lv.newfd, it)
	var fx map[string][]byte
	if lv.oldfd >= 0 {
		fx, _ = fdXattrs(lv.oldfd)
	}
	b.xattrsFd(lv.newfd, it, fx)
	if err := unix.Fchmod(lv.newfd, it.Mode); err != nil {
		return fmt.Errorf("chmod %s: %w", it.Path, err)
	}
	mt := int64(0)
	switch { // the disk's time when it has the folder: its contents are the disk's
	case it.D != nil:
		mt = tsNano(it.D.MTime)
	case it.F != nil:
		mt = tsNano(statMtime(&it.F.e.st))
	}
	if mt != 0 {
		ts := []unix.Timespec{unix.NsecToTimespec(mt), unix.NsecToTimespec(mt)}
		if err := unix.UtimesNanoAt(lv.newfd, ".", ts, 0); err != nil {
			b.notKept = append(b.notKept, "time of "+it.Path)
		}
	}
	return nil
}

func (b *builder) ownerOf(it *planItem) (int, int) {
	if it.F != nil && os.Geteuid() == 0 {
		return int(it.F.e.st.Uid), int(it.F.e.st.Gid)
	}
	if it.F != nil && int(it.F.e.st.Uid) != os.Geteuid() {
		b.notKept = append(b.notKept, "owner of "+it.Path)
	}
	return b.owner.uid, b.owner.gid
}

func (b *builder) chownFd(fd int, it *planItem) {
	if u, g := b.ownerOf(it); u >= 0 || g >= 0 {
		if err := unix.Fchown(fd, u, g); err != nil {
			b.notKept = append(b.notKept, "owner of "+it.Path)
		}
	}
}

func (b *builder) chownAt(dirfd int, name string, it *planItem) {
	if u, g := b.ownerOf(it); u >= 0 || g >= 0 {
		if err := unix.Fchownat(dirfd, name, u, g, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			b.notKept = append(b.notKept, "owner of "+it.Path)
		}
	}
}

func (b *builder) timesAt(dirfd int, name string, mtime int64) {
	ts := []unix.Timespec{unix.NsecToTimespec(mtime), unix.NsecToTimespec(mtime)}
	unix.UtimesNanoAt(dirfd, name, ts, unix.AT_SYMLINK_NOFOLLOW)
}

// xattrsFd sets the xattrs the new entry gets: every one the folder's
// entry had (POSIX ACLs, security.* and trusted.* as root, user.*), then
// those of the disk's version over them.
func (b *builder) xattrsFd(fd int, it *planItem, folder map[string][]byte) {
	set := map[string][]byte{}
	if it.F != nil {
		for k, v := range folder {
			set[k] = v // the folder's own (ACLs included) are kept
		}
	}
	if it.D != nil {
		for k, v := range it.D.Xattr {
			set[k] = v
		}
	}
	for k, v := range set {
		if err := unix.Fsetxattr(fd, k, v, 0); err != nil {
			b.notKept = append(b.notKept, fmt.Sprintf("xattr %s of %s (%v)", k, it.Path, err))
		}
	}
}

// teeWriter feeds a hash and writes to a file descriptor.
type teeWriter struct {
	h  io.Writer
	fd int
}

func (t teeWriter) Write(p []byte) (int, error) {
	t.h.Write(p)
	for w := 0; w < len(p); {
		n, err := unix.Write(t.fd, p[w:])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return w, err
		}
		w += n
	}
	return len(p), nil
}
