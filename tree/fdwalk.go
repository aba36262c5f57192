package tree

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// This file reads a mirror folder through directory descriptors: every
// folder is opened relative to its parent with O_NOFOLLOW, every entry is
// looked at with fstatat and opened with openat, so nobody who can write
// the folder or its parent can redirect a load or a write-back by swapping
// a folder for a symlink halfway. A folder of another file system (a mount
// point inside the mirror folder) is never entered.

// ErrMountInside: a folder inside the mirror folder is another file system.
var ErrMountInside = errors.New("holds a mount point of another file system")

const dirFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC

// OpenDirAt opens folder name under dirfd, never following a symlink.
func OpenDirAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, dirFlags, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// OpenDirPath opens an absolute folder path component by component, none
// of them followed if it is a symlink (ELOOP or ENOTDIR then).
func OpenDirPath(path string) (int, error) {
	if !filepath.IsAbs(path) {
		return -1, fmt.Errorf("open %s: not an absolute path", path)
	}
	fd, err := unix.Open("/", dirFlags, 0)
	if err != nil {
		return -1, fmt.Errorf("open /: %w", err)
	}
	for _, c := range strings.Split(strings.Trim(filepath.Clean(path), "/"), "/") {
		if c == "" {
			continue
		}
		next, err := OpenDirAt(fd, c)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("open %s (at %s, never following symlinks): %w", path, c, err)
		}
		fd = next
	}
	return fd, nil
}

// ReadNames lists the names in the folder dirfd refers to, sorted.
func ReadNames(dirfd int) ([]string, error) {
	// A duplicate descriptor: reading moves the folder's offset.
	d, err := OpenDirAt(dirfd, ".")
	if err != nil {
		return nil, err
	}
	defer unix.Close(d)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	var names []string
	for {
		n, err := unix.ReadDirent(d, *bp)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			break
		}
		_, _, names = unix.ParseDirent((*bp)[:n], -1, names)
	}
	slices.Sort(names)
	return names, nil
}

// FsEntry is one path of a folder as the descriptor walk found it.
type FsEntry struct {
	Rel  string
	St   unix.Stat_t
	Link string // symlink target
}

// Kind is the entry's kind as a tree records it.
func (e *FsEntry) Kind() Kind { return KindOf(uint32(e.St.Mode)) }

// IsReg tells a regular file from every other kind (KindOf calls FIFOs,
// sockets and devices files; the walk does not).
func (e *FsEntry) IsReg() bool { return e.St.Mode&unix.S_IFMT == unix.S_IFREG }

// IsDir tells a folder from every other kind.
func (e *FsEntry) IsDir() bool { return e.St.Mode&unix.S_IFMT == unix.S_IFDIR }

// IsLink tells a symlink from every other kind.
func (e *FsEntry) IsLink() bool { return e.St.Mode&unix.S_IFMT == unix.S_IFLNK }

// ErrSkipDir, returned by a walkFn for a folder, leaves it unentered.
var ErrSkipDir = errors.New("skip this folder")

// walkFn sees each entry with its parent folder's descriptor (valid only
// during the call) and its name there.
type walkFn func(parent int, name string, e *FsEntry) error

// WalkFolder visits root (rel ".", parent -1) and everything under it,
// parents before children, siblings sorted (pathLess order). It returns
// errMountInside when a folder under root is another file system, and
// never follows a symlink.
func WalkFolder(rootfd int, fn walkFn) error {
	var st unix.Stat_t
	if err := unix.Fstat(rootfd, &st); err != nil {
		return fmt.Errorf("fstat: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return errors.New("not a folder")
	}
	root := &FsEntry{Rel: ".", St: st}
	if err := fn(-1, ".", root); err != nil {
		return err
	}
	return walkIn(rootfd, ".", uint64(st.Dev), fn)
}

func walkIn(dirfd int, rel string, dev uint64, fn walkFn) error {
	names, err := ReadNames(dirfd)
	if err != nil {
		return fmt.Errorf("read folder %s: %w", rel, err)
	}
	for _, n := range names {
		e := &FsEntry{Rel: JoinRel(rel, n)}
		if err := unix.Fstatat(dirfd, n, &e.St, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue // gone while we looked
			}
			return fmt.Errorf("lstat %s: %w", e.Rel, err)
		}
		if e.IsLink() {
			l, err := ReadlinkAt(dirfd, n)
			if err != nil {
				return err
			}
			e.Link = l
		}
		if e.IsDir() && uint64(e.St.Dev) != dev {
			return fmt.Errorf("%s: %w (never entered)", e.Rel, ErrMountInside)
		}
		if err := fn(dirfd, n, e); errors.Is(err, ErrSkipDir) {
			continue // not entered
		} else if err != nil {
			return err
		}
		if e.IsDir() {
			sub, err := OpenDirAt(dirfd, n)
			if err != nil {
				return fmt.Errorf("open folder %s: %w", e.Rel, err)
			}
			var now unix.Stat_t
			if err := unix.Fstat(sub, &now); err != nil || now.Ino != e.St.Ino || now.Dev != e.St.Dev {
				unix.Close(sub)
				return fmt.Errorf("folder %s was replaced while it was read", e.Rel)
			}
			err = walkIn(sub, e.Rel, dev, fn)
			unix.Close(sub)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// JoinRel is the relative path of name in the folder dir ("." the top).
func JoinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// SplitRel returns the folder and the name of a relative path.
func SplitRel(rel string) (dir, name string) {
	i := strings.LastIndexByte(rel, '/')
	if i < 0 {
		return ".", rel
	}
	return rel[:i], rel[i+1:]
}

// ReadlinkAt is the target of the symlink name in the folder dirfd, however
// long.
func ReadlinkAt(dirfd int, name string) (string, error) {
	for size := 256; ; size *= 4 {
		buf := make([]byte, size)
		n, err := unix.Readlinkat(dirfd, name, buf)
		if err != nil {
			return "", fmt.Errorf("readlink %s: %w", name, err)
		}
		if n < size {
			return string(buf[:n]), nil
		}
	}
}

// OpenFileAt opens regular file name under dirfd for reading, never
// following a symlink and never blocking on a FIFO put there meanwhile;
// the file opened must be the one want describes (same inode).
func OpenFileAt(dirfd int, name string, want *unix.Stat_t) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("open %s: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG ||
		(want != nil && (st.Ino != want.Ino || st.Dev != want.Dev)) {
		unix.Close(fd)
		return -1, fmt.Errorf("open %s: it was replaced while it was read", name)
	}
	return fd, nil
}

// HashFd returns the SHA-256 of everything fd holds from its start.
func HashFd(fd int) (FileSum, error) {
	h := sha256.New()
	if err := ReadAll(fd, 0, -1, h); err != nil {
		return FileSum{}, err
	}
	return SumOf(h), nil
}

// NewHash starts a content digest; SumOf ends it.
func NewHash() hash.Hash { return sha256.New() }

// SumOf is the digest h has taken.
func SumOf(h hash.Hash) FileSum {
	var s FileSum
	h.Sum(s[:0])
	return s
}

// Zeros writes n zero bytes to w (a hole's contents).
func Zeros(w io.Writer, n int64) error {
	if n < 0 {
		return fmt.Errorf("extents overlap or pass the end: %w", ErrDamaged)
	}
	var z [32 << 10]byte
	for n > 0 {
		k := min(n, int64(len(z)))
		w.Write(z[:k])
		n -= k
	}
	return nil
}

// TeeWriter feeds a hash and writes to a file descriptor.
type TeeWriter struct {
	H  io.Writer // the hash
	FD int       // the file written
}

// Write feeds p to the hash and writes it to the file.
func (t TeeWriter) Write(p []byte) (int, error) {
	t.H.Write(p)
	if err := WriteAll(t.FD, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// ReadAll writes size bytes at off of fd (to the end when size < 0) to h.
func ReadAll(fd int, off, size int64, h io.Writer) error {
	bp := CopyBufs.Get().(*[]byte)
	defer CopyBufs.Put(bp)
	buf := *bp
	for size != 0 {
		k := len(buf)
		if size > 0 && int64(k) > size {
			k = int(size)
		}
		n, err := unix.Pread(fd, buf[:k], off)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			if size > 0 {
				return fmt.Errorf("file ends %d bytes early", size)
			}
			return nil
		}
		if _, err := h.Write(buf[:n]); err != nil {
			return err
		}
		off += int64(n)
		if size > 0 {
			size -= int64(n)
		}
	}
	return nil
}

// FdXattrs reads every extended attribute of fd that it can (all
// namespaces: user.*, POSIX ACLs, security.* and trusted.* as root).
func FdXattrs(fd int) (map[string][]byte, error) {
	buf := make([]byte, 1024)
	var n int
	var err error
	for {
		n, err = unix.Flistxattr(fd, buf)
		if errors.Is(err, unix.ERANGE) {
			buf = make([]byte, len(buf)*4)
			continue
		}
		break
	}
	if errors.Is(err, unix.ENOTSUP) || n <= 0 {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list xattrs: %w", err)
	}
	out := map[string][]byte{}
	for _, name := range strings.Split(strings.TrimRight(string(buf[:n]), "\x00"), "\x00") {
		if name == "" {
			continue
		}
		val := make([]byte, 256)
		for {
			m, err := unix.Fgetxattr(fd, name, val)
			if errors.Is(err, unix.ERANGE) {
				val = make([]byte, len(val)*8)
				continue
			}
			if err == nil {
				out[name] = append([]byte(nil), val[:m]...)
			}
			break
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// FileSum is a content digest: the SHA-256 of a file's bytes or of a symlink's
// target; the zero value is none (a folder, a FIFO).
type FileSum [32]byte

// None reports whether s is no digest (the zero value).
func (s FileSum) None() bool { return s == FileSum{} }
