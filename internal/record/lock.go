//go:build unix

package record

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// ErrLocked is a lock another holds still when the wait for it ended.
var ErrLocked = errors.New("held by another")

// lockPoll is how often a held lock is tried again.
const lockPoll = 50 * time.Millisecond

// Flock takes an exclusive flock on f, the one rule every RAMBar lock
// follows: tried at once, then every 50 ms until it is free, ctx ends (its
// error) or wait passes (ErrLocked). wait 0 tries once; wait < 0 waits as
// long as ctx lives. A call cut by a signal (EINTR) is tried again. The
// kernel drops the lock when f is closed or its process dies, so a kill -9
// leaves no stale lock.
func Flock(ctx context.Context, f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case !errors.Is(err, syscall.EWOULDBLOCK):
			return fmt.Errorf("flock %s: %w", f.Name(), err)
		case wait >= 0 && !time.Now().Before(deadline):
			return ErrLocked
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}

// Lock opens the lock file at path (made 0600 in a folder made 0700,
// never through a symbolic link) and takes its flock (Flock). release
// unlocks and closes it; the file is never removed (a file removed while
// someone waits on it would let two holders in at once).
func Lock(ctx context.Context, path string, wait time.Duration) (f *os.File, release func(), err error) {
	if err := os.MkdirAll(dirOf(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("lock: open %s: %w", path, err)
	}
	if err := Flock(ctx, f, wait); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
