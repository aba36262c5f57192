//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rambar/internal/record"
	"strconv"
	"strings"
	"syscall"
)

// strays sorts the records: the devices a killed Create left (stray) and
// the records that are done with (finished: no device, or a device that is
// mounted now, gone, or plainly not what that Create made). Records of
// Creates still running are in neither.
func (e *Engine) strays(ms []mountEntry) (stray, finished []zramRecord) {
	swaps, _ := os.ReadFile(filepath.Join(e.proc, "swaps"))
	boot := e.bootID()
	recs := e.readRecords()
	var adding, others []zramRecord
	for _, r := range recs {
		switch {
		case r.boot != boot:
			finished = append(finished, r) // its device went with that boot
		case e.running(r):
			others = append(others, r) // that Create is still running
		case r.dev < 0 && r.adding:
			adding = append(adding, r)
		case r.dev < 0 || !e.strayDevice(ms, string(swaps), r):
			finished = append(finished, r)
			others = append(others, r)
		default:
			stray = append(stray, r)
			others = append(others, r)
		}
	}
	free := func(r zramRecord) bool { return e.strayDevice(ms, string(swaps), r) }
	s, f := e.adoptAdding(adding, others, free)
	return append(stray, s...), append(finished, f...)
}

// running reports whether the process that wrote r still runs: the same
// pid with the same start time, or, when the start time could not be read
// then, any process with that pid (in doubt, a device is left alone).
func (e *Engine) running(r zramRecord) bool {
	if r.pid == os.Getpid() {
		return true
	}
	return record.Proc{PID: r.pid, Start: r.start}.AliveWith(e.startTime)
}

// strayDevice reports whether record r's device is still there, unused and
// as that Create left it: not mounted, not swap, its size 0 (before
// disksize) or the recorded one, and no ext4 but RAMBar's on it.
func (e *Engine) strayDevice(ms []mountEntry, swaps string, r zramRecord) bool {
	dev := "/dev/zram" + strconv.Itoa(r.dev)
	if r.ino != 0 && e.deviceIno(r.dev) != r.ino {
		return false // removed since, and N given to another device
	}
	size, err := e.readInt(e.zramAttr(r.dev, "disksize"))
	if err != nil || size != 0 && size != r.size {
		return false
	}
	for _, m := range ms {
		if m.Source == dev {
			return false
		}
	}
	for _, line := range strings.Split(swaps, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == dev {
			return false
		}
	}
	if label, _, err := ext4Super(dev); err == nil && label != zramLabel {
		return false
	}
	return true
}

// deviceIno is the inode number of zram N's sysfs folder, 0 when it is gone.
func (e *Engine) deviceIno(n int) uint64 {
	st, err := os.Stat(filepath.Join(e.sys, "block", "zram"+strconv.Itoa(n)))
	if err != nil {
		return 0
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return sys.Ino
	}
	return 0
}

// LeftoverDevices lists the zram devices ("/dev/zramN") that a Create which
// was killed added and nobody freed. The next Create of a zram disk frees
// them.
func (e *Engine) LeftoverDevices(ctx context.Context) ([]string, error) {
	ms, err := e.mounts()
	if err != nil {
		return nil, err
	}
	stray, _ := e.strays(ms)
	out := make([]string, 0, len(stray))
	for _, r := range stray {
		out = append(out, "/dev/zram"+strconv.Itoa(r.dev))
	}
	return out, nil
}

// FreeLeftoverDevices resets and removes the zram devices that killed
// Creates left (see LeftoverDevices), drops the records that are done
// with, and returns the devices it freed. A device that cannot be freed
// (still open) keeps its record for the next time; one removed meanwhile
// (by anyone) needs nothing more.
func (e *Engine) FreeLeftoverDevices(ctx context.Context) ([]string, error) {
	ms, err := e.mounts()
	if err != nil {
		return nil, err
	}
	stray, finished := e.strays(ms)
	for _, r := range finished {
		r.remove()
	}
	var freed []string
	var errs []error
	for _, r := range stray {
		err := e.removeZRAM(ctx, r.dev)
		if errors.Is(err, os.ErrNotExist) && e.deviceIno(r.dev) == 0 {
			r.remove() // removed meanwhile: nothing is left to free
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("free the leftover zram%d: %w", r.dev, err))
			continue
		}
		r.remove()
		freed = append(freed, "/dev/zram"+strconv.Itoa(r.dev))
	}
	return freed, errors.Join(errs...)
}
