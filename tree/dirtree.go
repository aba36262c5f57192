package tree

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

// DirTree is a folder held by a descriptor. Every path under it is
// resolved beneath it without following any symlink (openBeneath): what a
// restore makes and what it reads stays inside the folder, whatever the
// store or the folder holds.
type DirTree struct {
	Dir string
	Fd  int

	mu    sync.Mutex
	Notes []NotKept // what could not be set (setMeta)
	Ids   *Idents   // when not nil: the identities of what is made
}

// OpenTree opens the folder dir (itself trusted: a mount point, a store
// folder, a folder RAMBar made; a symlink as its last component is refused).
func OpenTree(dir string) (*DirTree, error) {
	fd, err := OpenRetry(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("open folder %s: %w", dir, err)
	}
	return &DirTree{Dir: dir, Fd: fd}, nil
}

// Close closes the tree's folder.
func (t *DirTree) Close() { unix.Close(t.Fd) }

// Path is rel's path, for messages and for tools that take paths.
func (t *DirTree) Path(rel string) string { return filepath.Join(t.Dir, filepath.FromSlash(rel)) }

// Open opens rel beneath t.
func (t *DirTree) Open(rel string, flags int, mode uint32) (int, error) {
	fd, err := OpenBeneath(t.Fd, rel, flags|unix.O_CLOEXEC, mode)
	if err != nil {
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			err = fmt.Errorf("%w (a symlink or mount on the way: not followed)", err)
		}
		return -1, &os.PathError{Op: "open", Path: t.Path(rel), Err: err}
	}
	return fd, nil
}

// OpenFile opens the regular file rel for reading, leaving its access time
// alone where it can; anything else is refused.
func (t *DirTree) OpenFile(rel string) (int, error) {
	fd, err := t.Open(rel, unix.O_RDONLY|unix.O_NONBLOCK|ONoAtime, 0)
	if errors.Is(err, unix.EPERM) && ONoAtime != 0 {
		fd, err = t.Open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0) // O_NOATIME needs the owner or root
	}
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, fmt.Errorf("%s is not a regular file: %w", t.Path(rel), ErrDamaged)
	}
	return fd, nil
}

// Parent opens the folder holding rel and returns it with rel's last
// component; done closes it.
func (t *DirTree) Parent(rel string) (fd int, name string, done func(), err error) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return t.Fd, rel, func() {}, nil
	}
	fd, err = t.Open(rel[:i], unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return -1, "", func() {}, err
	}
	return fd, rel[i+1:], func() { unix.Close(fd) }, nil
}

// Lstat reads rel's status without following a symlink, through the
// descriptors beneath t (the root itself for ".").
func (t *DirTree) Lstat(rel string, st *unix.Stat_t) error {
	if rel == "." {
		return unix.Fstat(t.Fd, st)
	}
	fd, name, done, err := t.Parent(rel)
	if err != nil {
		return err
	}
	defer done()
	return unix.Fstatat(fd, name, st, unix.AT_SYMLINK_NOFOLLOW)
}

// Mkdir makes folder rel (mode 0700 until its metadata is set); a folder
// already there is fine, anything else there is an error.
func (t *DirTree) Mkdir(rel string) error {
	pfd, name, done, err := t.Parent(rel)
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
		return NoSpace(fmt.Errorf("mkdir %s: %w", t.Path(rel), err))
	}
	return nil
}

// Symlink makes rel a symlink to target.
func (t *DirTree) Symlink(target, rel string) error {
	pfd, name, done, err := t.Parent(rel)
	if err != nil {
		return err
	}
	defer done()
	if err := unix.Symlinkat(target, pfd, name); err != nil {
		return NoSpace(fmt.Errorf("symlink %s: %w", t.Path(rel), err))
	}
	return nil
}

// Mkfifo makes rel a FIFO (mode 0600 until its metadata is set).
func (t *DirTree) Mkfifo(rel string) error {
	pfd, name, done, err := t.Parent(rel)
	if err != nil {
		return err
	}
	defer done()
	if err := mkfifoAt(t, pfd, name, rel); err != nil {
		return NoSpace(fmt.Errorf("mkfifo %s: %w", t.Path(rel), err))
	}
	return nil
}

// Link makes rel in t a hard link to fromRel in from.
func (t *DirTree) Link(from *DirTree, fromRel, rel string) error {
	ofd, oname, odone, err := from.Parent(fromRel)
	if err != nil {
		return err
	}
	defer odone()
	nfd, nname, ndone, err := t.Parent(rel)
	if err != nil {
		return err
	}
	defer ndone()
	return unix.Linkat(ofd, oname, nfd, nname, 0)
}

// Create makes the new file rel with mode, as a clone of in when clone
// (and the file system can), and returns it open for writing; cloned
// reports that its data is already there.
func (t *DirTree) Create(rel string, mode uint32, in int, clone bool) (out int, cloned bool, err error) {
	if clone {
		if out, ok := cloneAt(t, rel, in); ok {
			return out, true, nil
		}
	}
	out, err = t.Open(rel, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL, mode)
	if err != nil {
		return -1, false, NoSpace(err)
	}
	return out, false, nil
}

// asRoot: running as root, a restore gives every path its recorded owner
// (as another user, the files are that user's; under sudo, see ownerOf).
var asRoot = os.Geteuid() == 0

// note records something of rel that could not be set.
func (t *DirTree) note(rel, why string) {
	t.mu.Lock()
	t.Notes = append(t.Notes, NotKept{Path: rel, Why: why})
	t.mu.Unlock()
}

// SetMeta sets the metadata of rel from e through its descriptor fd (a
// file, folder or FIFO): owner (as root: ownerOf), mode (when chmod, or when the
// chown cleared setuid or setgid), xattrs, then times. An xattr the system
// refuses (macOS's com.apple.provenance, com.apple.macl; Linux's security.*
// under a policy) is noted, not fatal.
func (t *DirTree) SetMeta(fd int, rel string, e Entry, chmod bool) error {
	if uid, gid, ok := ownerOf(e); ok {
		if err := unix.Fchown(fd, uid, gid); err != nil {
			return fmt.Errorf("chown %s: %w", t.Path(rel), err)
		}
		chmod = chmod || e.Mode&(unix.S_ISUID|unix.S_ISGID) != 0
	}
	if chmod {
		if err := RetryEINTR(func() error { return unix.Fchmod(fd, unixMode(FilePerm(e))) }); err != nil {
			return fmt.Errorf("chmod %s: %w", t.Path(rel), err)
		}
	}
	for _, name := range SortedKeys(e.Xattr) {
		if err := unix.Fsetxattr(fd, name, e.Xattr[name], 0); err != nil {
			if !xattrRefused(err) {
				return fmt.Errorf("set xattr %s of %s: %w", name, t.Path(rel), err)
			}
			t.note(rel, fmt.Sprintf("extended attribute %s not set: %v", name, err))
		}
	}
	if err := setTimes(t, fd, rel, e.ATime, e.MTime); err != nil {
		return fmt.Errorf("set times of %s: %w", t.Path(rel), err)
	}
	t.Ids.noteFd(rel, fd)
	return nil
}

// SetMetaOf opens rel (a file, folder or FIFO) and sets its metadata.
func (t *DirTree) SetMetaOf(rel string, e Entry) error {
	flags := unix.O_RDONLY | unix.O_NONBLOCK
	if e.Kind == KindDir {
		flags |= unix.O_DIRECTORY
	}
	fd, err := t.Open(rel, flags, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return t.SetMeta(fd, rel, e, true)
}

// SetLinkMeta sets the owner (as root: ownerOf), xattrs and times of the symlink rel.
func (t *DirTree) SetLinkMeta(rel string, e Entry) error {
	pfd, name, done, err := t.Parent(rel)
	if err != nil {
		return err
	}
	defer done()
	if uid, gid, ok := ownerOf(e); ok {
		if err := unix.Fchownat(pfd, name, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return fmt.Errorf("chown %s: %w", t.Path(rel), err)
		}
	}
	for _, k := range SortedKeys(e.Xattr) {
		if err := lsetxattrAt(pfd, name, k, e.Xattr[k]); err != nil {
			if errors.Is(err, unix.EPERM) && strings.HasPrefix(k, "user.") {
				continue // Linux refuses user.* xattrs on symlinks
			}
			if !xattrRefused(err) {
				return fmt.Errorf("set xattr %s of %s: %w", k, t.Path(rel), err)
			}
			t.note(rel, fmt.Sprintf("extended attribute %s not set: %v", k, err))
		}
	}
	ts := []unix.Timespec{e.ATime, e.MTime}
	if err := unix.UtimesNanoAt(pfd, name, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("set times of %s: %w", t.Path(rel), err)
	}
	t.Ids.noteAt(rel, pfd, name)
	return nil
}

// xattrRefused reports whether setting an xattr failed because the system
// does not allow it here (not for lack of space or a broken disk).
func xattrRefused(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EACCES)
}

// SortedKeys lists an xattr map's names in order.
func SortedKeys[V any](x map[string]V) []string {
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
