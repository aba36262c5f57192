package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// folderWrite is one write-back of a Mirror folder: the new tree is planned
// (plan.go), built in a staging folder only RAMBar's user can enter
// (".NAME.rambar-XXXXXXXX", mode 0700, made beside the folder and used
// only through its descriptor), checked, flushed, and swapped in with one
// atomic exchange. What appears in the old tree while this runs is moved
// into the new one, never dropped.
type folderWrite struct {
	folder  string
	entries []Entry                          // the disk's tree (the snapshot just saved)
	openObj func(Entry) (int, objRef, error) // opens an entry's bytes in the store
	rec     *syncRecord                      // the last sync; nil: none (everything differs)
	at      time.Time                        // names conflict copies
	// staged, when set, runs once the new tree is built and flushed, before
	// the swap (tests race it and count the flushes).
	staged func(w *folderWrite)

	parentfd, folderfd, boxfd, newfd int
	box                              string
	scan                             map[string]*fstate
	b                                builder
}

// run does the write-back and returns what it did and the new record.
func (w *folderWrite) run(ctx context.Context) (WriteBack, *syncRecord, error) {
	w.parentfd, w.folderfd, w.boxfd, w.newfd = -1, -1, -1, -1
	defer w.close()
	wb := WriteBack{Folder: w.folder}
	if err := w.open(); err != nil {
		return wb, nil, err
	}
	if err := w.scanFolder(); err != nil {
		return wb, nil, fmt.Errorf("read %s: %w", w.folder, err)
	}
	items, dsides, planned, err := makePlan(w.rec, w.scan, w.entries, w.diskHash, w.at)
	if err != nil {
		return wb, nil, err
	}
	planned.Folder = w.folder
	if err := w.makeBox(); err != nil {
		return wb, nil, err
	}
	var st unix.Stat_t
	unix.Fstat(w.folderfd, &st)
	w.b.owner, w.b.openObj = newOwner(st.Uid, st.Gid), w.openObj
	if err := w.b.build(ctx, w.newfd, w.folderfd, items); err != nil {
		w.discard()
		return wb, nil, fmt.Errorf("build the new %s (the folder is unchanged): %w", w.folder, err)
	}
	if err := commitFlush(w.boxfd); err != nil {
		w.discard()
		return wb, nil, noSpace(fmt.Errorf("flush the new %s (the folder is unchanged): %w", w.folder, err))
	}
	w.b.flushes++
	if w.staged != nil {
		w.staged(w)
	}
	if err := w.swap(); err != nil {
		return wb, nil, err
	}
	rescued := w.sweep()
	planned.NotKept = append(planned.NotKept, w.b.notKept...)
	planned.Leftovers = w.leftovers()
	planned.KeptOutside += rescued
	rec, err := w.record(items, dsides)
	return planned, rec, err
}

func (w *folderWrite) close() {
	for _, fd := range []int{w.newfd, w.boxfd, w.folderfd, w.parentfd} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// open opens the folder's parent and the folder, never through a symlink,
// and refuses a folder that is a mount point.
func (w *folderWrite) open() error {
	var err error
	if w.parentfd, err = openDirPath(filepath.Dir(w.folder)); err != nil {
		return err
	}
	if w.folderfd, err = openDirAt(w.parentfd, filepath.Base(w.folder)); err != nil {
		return fmt.Errorf("open %s (never following a symlink): %w", w.folder, err)
	}
	var p, f unix.Stat_t
	unix.Fstat(w.parentfd, &p)
	unix.Fstat(w.folderfd, &f)
	if p.Dev != f.Dev {
		return fmt.Errorf("%s is a mount point of another file system; it is never written back", w.folder)
	}
	return nil
}

// scanFolder reads the whole folder through descriptors, hashing what
// changed since the record (by identity: inode, ctime, mtime, size, mode).
func (w *folderWrite) scanFolder() error {
	var last map[string]*syncPath
	if w.rec != nil {
		last = w.rec.byPath()
	}
	w.scan = map[string]*fstate{}
	return walkFolder(w.folderfd, func(parent int, name string, e *fsEntry) error {
		f := &fstate{e: e}
		switch {
		case e.isLink():
			f.hash = linkHash(e.link)
		case e.isReg():
			id := identOf(&e.st)
			if r := last[e.rel]; r != nil && r.F != nil && r.F.Ident != nil && *r.F.Ident == id && r.F.Hash != "" {
				f.hash = r.F.Hash
				break
			}
			fd, err := openFileAt(parent, name, &e.st)
			if err != nil {
				return err
			}
			f.hash, err = hashFd(fd)
			unix.Close(fd)
			if err != nil {
				return fmt.Errorf("read %s: %w", e.rel, err)
			}
		}
		w.scan[e.rel] = f
		return nil
	})
}

func (w *folderWrite) diskHash(e *Entry) (string, error) {
	fd, ref, err := w.openObj(*e)
	if err != nil {
		return "", err
	}
	defer unix.Close(fd)
	if !ref.Packed && e.Extents == nil {
		return hashFd(fd)
	}
	h := newHash()
	if e.Extents == nil {
		if err := readAll(fd, ref.Off, ref.Size, h); err != nil {
			return "", err
		}
		return hexSum(h), nil
	}
	// A sparse file: its object holds the data ranges one after another;
	// the holes between are zeros.
	pos, from := int64(0), ref.Off
	for _, x := range e.Extents {
		if err := zeros(h, x.Off-pos); err != nil {
			return "", err
		}
		if err := readAll(fd, from, x.Len, h); err != nil {
			return "", err
		}
		pos, from = x.Off+x.Len, from+x.Len
	}
	if err := zeros(h, e.Size-pos); err != nil {
		return "", err
	}
	return hexSum(h), nil
}

// zeros writes n zero bytes to w (a hole's contents).
func zeros(w io.Writer, n int64) error {
	if n < 0 {
		return fmt.Errorf("extents overlap or pass the end: %w", errBadManifest)
	}
	var z [32 << 10]byte
	for n > 0 {
		k := min(n, int64(len(z)))
		w.Write(z[:k])
		n -= k
	}
	return nil
}

// makeBox makes the private staging folder beside the folder and the new
// tree's root in it, and checks that what it opened is what it made.
func (w *folderWrite) makeBox() error {
	w.box = "." + filepath.Base(w.folder) + ".rambar-" + randomID()[:8]
	if err := unix.Mkdirat(w.parentfd, w.box, 0o700); err != nil {
		return noSpace(fmt.Errorf("make the staging folder beside %s: %w", w.folder, err))
	}
	fd, err := openDirAt(w.parentfd, w.box)
	if err != nil {
		return fmt.Errorf("open the staging folder %s: %w", w.box, err)
	}
	w.boxfd = fd
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || int(st.Uid) != os.Geteuid() || uint32(st.Mode)&0o7777 != 0o700 {
		return fmt.Errorf("the staging folder %s beside %s was replaced by someone else; nothing was written", w.box, w.folder)
	}
	// Only the owner may enter it, whatever the umask made of it.
	if err := unix.Fchmod(fd, 0o700); err != nil {
		return err
	}
	if err := unix.Mkdirat(fd, "new", 0o700); err != nil {
		return noSpace(fmt.Errorf("make the staging folder: %w", err))
	}
	if w.newfd, err = openDirAt(fd, "new"); err != nil {
		return err
	}
	return nil
}

// discard removes the staging folder after a failure; the folder was not
// touched.
func (w *folderWrite) discard() {
	if w.boxfd < 0 {
		return
	}
	removeAllAt(w.boxfd, "new")
	w.removeBox()
}

func (w *folderWrite) removeBox() {
	var a, b unix.Stat_t
	if unix.Fstat(w.boxfd, &a) == nil && unix.Fstatat(w.parentfd, w.box, &b, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		a.Ino == b.Ino && a.Dev == b.Dev {
		unix.Unlinkat(w.parentfd, w.box, unix.AT_REMOVEDIR)
	}
}

// swap exchanges the new tree with the folder, after checking the folder's
// name still holds the folder that was read.
func (w *folderWrite) swap() error {
	base := filepath.Base(w.folder)
	var f, now unix.Stat_t
	unix.Fstat(w.folderfd, &f)
	if err := unix.Fstatat(w.parentfd, base, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || now.Ino != f.Ino || now.Dev != f.Dev {
		w.discard()
		return fmt.Errorf("%s was moved or replaced during the write-back; it was left as it is", w.folder)
	}
	if err := exchangeAt(w.boxfd, "new", w.parentfd, base); err != nil {
		w.discard()
		return fmt.Errorf("swap in the new %s (the folder is unchanged): %w", w.folder, err)
	}
	if err := unix.Fsync(w.parentfd); err != nil {
		return fmt.Errorf("fsync %s: %w", filepath.Dir(w.folder), err)
	}
	var old unix.Stat_t
	if err := unix.Fstatat(w.boxfd, "new", &old, unix.AT_SYMLINK_NOFOLLOW); err != nil || old.Ino != f.Ino {
		return fmt.Errorf("%s was replaced during the swap; the staging folder %s was left for you to check", w.folder, w.box)
	}
	return nil
}

// sweep empties the old tree (now in the staging folder), moving anything
// that was not there when it was read, or changed since, into the new
// tree; then removes the staging folder. It returns how many it moved.
func (w *folderWrite) sweep() int {
	old, err := openDirAt(w.boxfd, "new")
	if err != nil {
		return 0
	}
	defer unix.Close(old)
	n := w.sweepIn(old, ".")
	unix.Unlinkat(w.boxfd, "new", unix.AT_REMOVEDIR)
	w.removeBox()
	return n
}

func (w *folderWrite) sweepIn(dirfd int, rel string) int {
	names, _ := readNames(dirfd)
	moved := 0
	for _, n := range names {
		r := joinRel(rel, n)
		var st unix.Stat_t
		if unix.Fstatat(dirfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			if sub, err := openDirAt(dirfd, n); err == nil {
				moved += w.sweepIn(sub, r)
				unix.Close(sub)
			}
			if unix.Unlinkat(dirfd, n, unix.AT_REMOVEDIR) != nil {
				moved += w.rescue(dirfd, n, r)
			}
			continue
		}
		if f := w.scan[r]; f != nil && sameFile(&f.e.st, &st) {
			unix.Unlinkat(dirfd, n, 0)
			continue
		}
		moved += w.rescue(dirfd, n, r)
	}
	return moved
}

// sameFile: the inode the scan saw, unchanged (ctime is not compared: the
// write-back's own links change it).
func sameFile(a, b *unix.Stat_t) bool {
	return a.Ino == b.Ino && a.Size == b.Size && a.Mode == b.Mode && tsNano(statMtime(a)) == tsNano(statMtime(b))
}

// rescue moves an entry that appeared or changed in the old tree during the
// write-back into the new tree: under its name if that is free, else as a
// conflict copy.
func (w *folderWrite) rescue(dirfd int, name, rel string) int {
	dir, _ := splitRel(rel)
	to, err := w.newDir(dir)
	if err != nil {
		return 0
	}
	defer unix.Close(to)
	target := name
	for i := 1; ; i++ {
		var st unix.Stat_t
		if unix.Fstatat(to, target, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			break
		}
		_, target = splitRel(conflictName(rel, w.at, i))
	}
	if unix.Renameat(dirfd, name, to, target) != nil {
		return 0
	}
	return 1
}

// newDir opens (making it when needed) folder rel of the new tree.
func (w *folderWrite) newDir(rel string) (int, error) {
	fd, err := openDirAt(w.newfd, ".")
	if err != nil || rel == "." {
		return fd, err
	}
	for _, c := range splitAll(rel) {
		unix.Mkdirat(fd, c, 0o755)
		next, err := openDirAt(fd, c)
		unix.Close(fd)
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// leftovers lists the staging folders of earlier write-backs of this
// folder that RAMBar's user made and never removed.
func (w *folderWrite) leftovers() []string {
	names, _ := readNames(w.parentfd)
	prefix := "." + filepath.Base(w.folder) + ".rambar-"
	var out []string
	for _, n := range names {
		var st unix.Stat_t
		if n == w.box || !strings.HasPrefix(n, prefix) || unix.Fstatat(w.parentfd, n, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR && int(st.Uid) == os.Geteuid() {
			out = append(out, filepath.Join(filepath.Dir(w.folder), n))
		}
	}
	return out
}

// removeAllAt removes name under dirfd and everything in it, never
// following a symlink.
func removeAllAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	sub, err := openDirAt(dirfd, name)
	if err != nil {
		return err
	}
	names, _ := readNames(sub)
	for _, n := range names {
		removeAllAt(sub, n)
	}
	unix.Close(sub)
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}
