package tree

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"

	"golang.org/x/sys/unix"
)

// Reading what a descriptor holds: content digests, bytes, xattrs.

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
