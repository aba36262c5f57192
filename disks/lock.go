package disks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// DefaultLockWait is how long an operation waits for another RAMBar working
// on the same disk before it gives up with ErrBusy.
const DefaultLockWait = 5 * time.Minute

// lockPoll is how often a busy lock is tried again.
const lockPoll = 50 * time.Millisecond

// The per-disk lock.
//
// One create, save, eject, restore or reclaim of a disk runs at a time, in
// this process and across processes: each takes an exclusive flock on
// DATA/locks/KEY.lock, where KEY is the disk's name folded to lower case (the
// names macOS treats as one volume share a lock) and escaped so any Unicode
// name is a safe file name. A waiting operation blocks until the lock is
// free, its context ends, or LockWait passes; then it fails with an error
// wrapping ramdisk.ErrBusy that says what the other RAMBar is doing ("another
// RAMBar (pid 41) is saving Work"). So the menu never hangs for good, and a
// second `create` of a name waits for the first and then finds the name
// taken (ErrExists). The lock files are never deleted: a file removed while
// someone waits on it would let two holders in at once. The kernel drops a
// flock when its holder dies, so a kill -9 leaves no stale lock.

// lockName is the lock file's name for a disk name: bytes other than
// ASCII letters, digits, '-' and '_' as %XX, shortened with a hash when long.
func lockName(name string) string {
	var b strings.Builder
	for _, c := range []byte(strings.ToLower(name)) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return shortKey(b.String()) + ".lock"
}

// shortKey shortens an escaped name with a hash when it is long.
func shortKey(s string) string {
	if len(s) > 120 {
		sum := sha256.Sum256([]byte(s))
		s = s[:80] + "-" + hex.EncodeToString(sum[:16])
	}
	return s
}

// lock takes the disk's lock for doing ("saving", "creating"…) and returns
// its release. Without a data folder there is nothing to lock in: it
// returns a release that does nothing.
func (s *Service) lock(ctx context.Context, name, doing string) (release func(), err error) {
	if s.Paths.Data == "" {
		return func() {}, nil
	}
	dir := filepath.Join(s.Paths.Data, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	path := filepath.Join(dir, lockName(name))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: open %s: %w", name, path, err)
	}
	wait := s.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	deadline := time.Now().Add(wait)
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: flock %s: %w", name, path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w: %s; try again when it is done", ramdisk.ErrBusy, holderOf(path, name))
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting while %s: %w", holderOf(path, name), ctx.Err())
		case <-time.After(lockPoll):
		}
	}
	// Who holds it, for the message a waiting RAMBar shows. Informational:
	// the flock is the lock.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+doing+"\n"), 0)
	return func() {
		f.Truncate(0)
		unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// holderOf says who holds a lock: "another RAMBar (pid 41) is saving Work".
func holderOf(path, name string) string {
	b, _ := os.ReadFile(path)
	pid, doing, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	odd := strings.IndexFunc(doing, func(r rune) bool { return (r < 'a' || r > 'z') && r != ' ' }) >= 0
	if _, err := strconv.Atoi(pid); err != nil || !ok || odd || len(doing) > 40 {
		return "another RAMBar is working on " + name
	}
	return fmt.Sprintf("another RAMBar (pid %s) is %s %s", pid, doing, name)
}
