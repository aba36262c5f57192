package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"rambar/internal/record"
	"rambar/keeper"
	"rambar/ramdisk"
)

// DefaultLockWait is how long an operation waits for another RAMBar working
// on the same disk before it gives up with ErrBusy.
const DefaultLockWait = 5 * time.Minute

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

// lockName is the lock file's name for a disk name: its key under the
// folded rule on every system (record.Names), so the names macOS treats as
// one volume share a lock; on Linux, where they are two disks, a lock that
// also keeps "work" waiting while "Work" is saved only waits.
func lockName(name string) string { return record.Names{Folded: true}.Key(name) + ".lock" }

// lock takes the disk's lock for doing ("saving", "creating"…) and returns
// its release (record.Lock: one wait and cancel rule). Without a data
// folder there is nothing to lock in: it returns a release that does
// nothing.
func (s *Service) lock(ctx context.Context, name, doing string) (release func(), err error) {
	if s.Paths.Data == "" {
		return func() {}, nil
	}
	path := filepath.Join(s.Paths.Data, "locks", lockName(name))
	wait := s.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	f, unlock, err := record.Lock(ctx, path, wait)
	switch {
	case errors.Is(err, record.ErrLocked):
		return nil, fmt.Errorf("%w: %s; try again when it is done", ramdisk.ErrBusy, holderOf(path, name))
	case ctx.Err() != nil && errors.Is(err, ctx.Err()):
		return nil, fmt.Errorf("waiting while %s: %w", holderOf(path, name), err)
	case err != nil:
		return nil, fmt.Errorf("lock %s: %w", name, err)
	}
	// Who holds it, for the message a waiting RAMBar shows. Informational:
	// the flock is the lock.
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+" "+doing+"\n"), 0)
	return func() {
		f.Truncate(0)
		unlock()
	}, nil
}

// keeperLocked is the keeper and the lock of disk name for doing, the
// keeper first: without a data folder it is ErrNoData, with no wait.
func (s *Service) keeperLocked(ctx context.Context, name, doing string) (*keeper.Keeper, func(), error) {
	k, err := s.Keeper()
	if err != nil {
		return nil, nil, err
	}
	release, err := s.lock(ctx, name, doing)
	return k, release, err
}

// findLocked is keeperLocked of the mounted disk name (a name or its
// mount point: Find), found before its lock is taken.
func (s *Service) findLocked(ctx context.Context, name, doing string) (*keeper.Keeper, ramdisk.Volume, func(), error) {
	k, err := s.Keeper()
	if err != nil {
		return nil, ramdisk.Volume{}, nil, err
	}
	v, err := s.Find(ctx, name)
	if err != nil {
		return nil, v, nil, err
	}
	release, err := s.lock(ctx, v.Name, doing)
	return k, v, release, err
}

// holderOf says who holds a lock: "another RAMBar (pid 41) is saving Work".
func holderOf(path, name string) string {
	b, _ := record.ReadFile(path, 256)
	pid, doing, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	odd := strings.IndexFunc(doing, func(r rune) bool { return (r < 'a' || r > 'z') && r != ' ' }) >= 0
	if _, err := strconv.Atoi(pid); err != nil || !ok || odd || len(doing) > 40 {
		return "another RAMBar is working on " + name
	}
	return fmt.Sprintf("another RAMBar (pid %s) is %s %s", pid, doing, name)
}
