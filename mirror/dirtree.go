package mirror

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// dirTree is a folder held by a descriptor. Every path under it is
// resolved beneath it without following any symlink (openBeneath): what a
// restore makes and what it reads stays inside the folder, whatever the
// store or the folder holds.
type dirTree struct {
	dir string
	fd  int

	mu    sync.Mutex
	notes []NotKept // what could not be set (setMeta)
	ids   *idents   // when not nil: the identities of what is made
}

// openTree opens the folder dir (itself trusted: a mount point, a store
// folder, a folder RAMBar made; a symlink as its last component is refused).
func openTree(dir string) (*dirTree, error) {
	fd, err := openRetry(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", dir, err)
	}
	return &dirTree{dir: dir, fd: fd}, nil
}

func (t *dirTree) close() { unix.Close(t.fd) }

// path is rel's path, for messages and for tools that take paths.
func (t *dirTree) path(rel string) string { return filepath.Join(t.dir, filepath.FromSlash(rel)) }

// open opens rel beneath t.
func (t *dirTree) open(rel string, flags int, mode uint32) (int, error) {
	fd, err := openBeneath(t.fd, rel, flags|unix.O_CLOEXEC, mode)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			err = fmt.Errorf("%w (a symlink or mount on the way: not followed)", err)
		}
		return -1, &os.PathError{Op: "open", Path: t.path(rel), Err: err}
	}
	return fd, nil
}

// openFile opens the regular file rel for reading, leaving its access time
// alone where it can; anything else is refused.
func (t *dirTree) openFile(rel string) (int, error) {
	fd, err := t.open(rel, unix.O_RDONLY|unix.O_NONBLOCK|oNoAtime, 0)
	if errors.Is(err, unix.EPERM) && oNoAtime != 0 {
		fd, err = t.open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0) // O_NOATIME needs the owner or root
	}
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is not a regular file: %w", t.path(rel), errDamaged)
	}
	return fd, nil
}

// parent opens the folder holding rel and returns it with rel's last
// component; done closes it.
func (t *dirTree) parent(rel string) (fd int, name string, done func(), err error) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return t.fd, rel, func() {}, nil
	}
	fd, err = t.open(rel[:i], unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, "", func() {}, err
	}
	return fd, rel[i+1:], func() { unix.Close(fd) }, nil
}

// mkdir makes folder rel (mode 0700 until its metadata is set); a folder
// already there is fine, anything else there is an error.
func (t *dirTree) mkdir(rel string) error {
	pfd, name, done, err := t.parent(rel)
	if err != nil {
		return err
	}
	defer done()
	err = unix.Mkdirat(pfd, name, 0o700)
	if errors.Is(err, unix.EEXIST) {
		var st unix.Stat_t
		if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR {
			return nil
		}
	}
	if err != nil {
		return noSpace(fmt.Errorf("mkdir %s: %w", t.path(rel), err))
	}
	return nil
}

// symlink makes rel a symlink to target.
func (t *dirTree) symlink(target, rel string) error {
	pfd, name, done, err := t.parent(rel)
	if err != nil {
		return err
	}
	defer done()
	if err := unix.Symlinkat(target, pfd, name); err != nil {
		return noSpace(fmt.Errorf("symlink %s: %w", t.path(rel), err))
	}
	return nil
}

// mkfifo makes rel a FIFO (mode 0600 until its metadata is set).
func (t *dirTree) mkfifo(rel string) error {
	pfd, name, done, err := t.parent(rel)
	if err != nil {
		return err
	}
	defer done()
	if err := mkfifoAt(t, pfd, name, rel); err != nil {
		return noSpace(fmt.Errorf("mkfifo %s: %w", t.path(rel), err))
	}
	return nil
}

// link makes rel in t a hard link to fromRel in from.
func (t *dirTree) link(from *dirTree, fromRel, rel string) error {
	ofd, oname, odone, err := from.parent(fromRel)
	if err != nil {
		return err
	}
	defer odone()
	nfd, nname, ndone, err := t.parent(rel)
	if err != nil {
		return err
	}
	defer ndone()
	return unix.Linkat(ofd, oname, nfd, nname, 0)
}

// create makes the new file rel with mode, as a clone of in when clone
// (and the file system can), and returns it open for writing; cloned
// reports that its data is already there.
func (t *dirTree) create(rel string, mode uint32, in int, clone bool) (out int, cloned bool, err error) {
	if clone {
		if out, ok := cloneAt(t, rel, in); ok {
			return out, true, nil
		}
	}
	out, err = t.open(rel, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, mode)
	if err != nil {
		return -1, false, noSpace(err)
	}
	return out, false, nil
}

// asRoot: running as root, a restore gives every path its recorded owner
// (as another user, the files are that user's; under sudo, see ownerOf).
var asRoot = os.Geteuid() == 0

// note records something of rel that could not be set.
func (t *dirTree) note(rel, why string) {
	t.mu.Lock()
	t.notes = append(t.notes, NotKept{Path: rel, Why: why})
	t.mu.Unlock()
}

// setMeta sets the metadata of rel from e through its descriptor fd (a
// file, folder or FIFO): owner (as root: ownerOf), mode (when chmod, or when the
// chown cleared setuid or setgid), xattrs, then times. An xattr the system
// refuses (macOS's com.apple.provenance, com.apple.macl; Linux's security.*
// under a policy) is noted, not fatal.
func (t *dirTree) setMeta(fd int, rel string, e Entry, chmod bool) error {
	if uid, gid, ok := ownerOf(e); ok {
		if err := unix.Fchown(fd, uid, gid); err != nil {
			return fmt.Errorf("chown %s: %w", t.path(rel), err)
		}
		chmod = chmod || e.Mode&(unix.S_ISUID|unix.S_ISGID) != 0
	}
	if chmod {
		if err := retryEINTR(func() error { return unix.Fchmod(fd, unixMode(filePerm(e))) }); err != nil {
			return fmt.Errorf("chmod %s: %w", t.path(rel), err)
		}
	}
	for _, name := range sortedKeys(e.Xattr) {
		if err := unix.Fsetxattr(fd, name, e.Xattr[name], 0); err != nil {
			if !xattrRefused(err) {
				return fmt.Errorf("set xattr %s of %s: %w", name, t.path(rel), err)
			}
			t.note(rel, fmt.Sprintf("extended attribute %s not set: %v", name, err))
		}
	}
	if err := setTimes(t, fd, rel, e.ATime, e.MTime); err != nil {
		return fmt.Errorf("set times of %s: %w", t.path(rel), err)
	}
	t.ids.noteFd(rel, fd)
	return nil
}

// setMetaOf opens rel (a file, folder or FIFO) and sets its metadata.
func (t *dirTree) setMetaOf(rel string, e Entry) error {
	flags := unix.O_RDONLY | unix.O_NONBLOCK
	if e.Kind == KindDir {
		flags |= unix.O_DIRECTORY
	}
	fd, err := t.open(rel, flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return t.setMeta(fd, rel, e, true)
}

// setLinkMeta sets the owner (as root: ownerOf), xattrs and times of the symlink rel.
func (t *dirTree) setLinkMeta(rel string, e Entry) error {
	pfd, name, done, err := t.parent(rel)
	if err != nil {
		return err
	}
	defer done()
	if uid, gid, ok := ownerOf(e); ok {
		if err := unix.Fchownat(pfd, name, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fmt.Errorf("chown %s: %w", t.path(rel), err)
		}
	}
	for _, k := range sortedKeys(e.Xattr) {
		if err := lsetxattrAt(pfd, name, k, e.Xattr[k]); err != nil {
			if errors.Is(err, unix.EPERM) && strings.HasPrefix(k, "user.") {
				continue // Linux refuses user.* xattrs on symlinks
			}
			if !xattrRefused(err) {
				return fmt.Errorf("set xattr %s of %s: %w", k, t.path(rel), err)
			}
			t.note(rel, fmt.Sprintf("extended attribute %s not set: %v", k, err))
		}
	}
	ts := []unix.Timespec{e.ATime, e.MTime}
	if err := unix.UtimesNanoAt(pfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("set times of %s: %w", t.path(rel), err)
	}
	t.ids.noteAt(rel, pfd, name)
	return nil
}

// xattrRefused reports whether setting an xattr failed because the system
// does not allow it here (not for lack of space or a broken disk).
func xattrRefused(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EACCES)
}

// sortedKeys lists an xattr map's names in order.
func sortedKeys[V any](x map[string]V) []string {
	keys := make([]string, 0, len(x))
	for k := range x {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// lookThenRename is renameNoReplace on a file system that cannot refuse to
// replace (exFAT, SMB): EEXIST when to exists, else a plain rename.
func lookThenRename(fromfd int, from string, tofd int, to string) error {
	var st unix.Stat_t
	if unix.Fstatat(tofd, to, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return unix.EEXIST
	}
	return unix.Renameat(fromfd, from, tofd, to)
}
