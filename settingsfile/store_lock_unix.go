//go:build unix

package settingsfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"rambar/internal/record"
	"rambar/ramdisk"
)

// settingsLockWait bounds how long a change waits for another RAMBar's.
const settingsLockWait = 30 * time.Second

// lock takes the settings lock: an flock on the folder that holds the
// settings file. The folder is never replaced (the file is, by each atomic
// write), and no lock file is left beside the settings.
func (st Store) lock() (unlock func(), err error) {
	p := filepath.Dir(st.Path)
	if err := os.MkdirAll(p, 0o700); err != nil {
		return nil, fmt.Errorf("lock settings: %w", err)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, fmt.Errorf("lock settings: %w", err)
	}
	switch err := record.Flock(context.Background(), f, settingsLockWait); {
	case errors.Is(err, record.ErrLocked):
		f.Close()
		return nil, fmt.Errorf("lock settings: %w: another RAMBar has been changing %s for %s", ramdisk.ErrBusy, st.Path, settingsLockWait)
	case err != nil:
		f.Close()
		return nil, fmt.Errorf("lock settings: %w", err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
