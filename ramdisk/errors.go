package ramdisk

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Engines wrap them, keeping the tool's own words:
//
//	fmt.Errorf("diskutil eject %s: %w: %s", dev, ramdisk.ErrBusy, stderr)
//
// so callers test with errors.Is and users still read what the tool said.
var (
	// ErrBusy: the volume is in use; a BusyError names who holds it.
	ErrBusy = errors.New("disk is busy")
	// ErrNotFound: no such RAM disk (never made, or already gone).
	ErrNotFound = errors.New("no such RAM disk")
	// ErrExists: a volume with that name is already mounted.
	ErrExists = errors.New("a disk with that name is already mounted")
	// ErrUnsupported: this engine or machine cannot do it.
	ErrUnsupported = errors.New("not supported here")
	// ErrNeedsAdmin: the operation needs administrator rights that were not available.
	ErrNeedsAdmin = errors.New("needs administrator rights")
	// ErrCancelled: the user cancelled a prompt (osascript -128, pkexec dismissed).
	ErrCancelled = errors.New("cancelled")
	// ErrTooLarge: the plan was refused for memory reasons; --force overrides.
	ErrTooLarge = errors.New("too large for this machine's memory")
	// ErrNoSpace: the destination has no room for what must be written.
	ErrNoSpace = errors.New("not enough space")
	// ErrMountPointTaken: the disk's mount point is there and cannot be
	// used (a file, a folder that is not empty, another user's folder). It
	// matches ErrExists (the name's place is taken, exit 8) but says what.
	ErrMountPointTaken error = mountPointTaken{}
)

type mountPointTaken struct{}

func (mountPointTaken) Error() string        { return "its mount point cannot be used" }
func (mountPointTaken) Is(target error) bool { return target == ErrExists }

// Holder is a process that keeps a volume busy.
type Holder struct {
	PID     int    `json:"pid"`
	Command string `json:"command"`
}

func (h Holder) String() string { return fmt.Sprintf("%s (pid %d)", h.Command, h.PID) }

// BusyError reports a volume that could not be ejected because processes hold
// it. It matches ErrBusy with errors.Is.
type BusyError struct {
	Volume  string   // name or mount point
	Holders []Holder // may be empty when they could not be found
	Err     error    // the tool's own failure
}

func (e *BusyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is busy", e.Volume)
	if len(e.Holders) > 0 {
		names := make([]string, len(e.Holders))
		for i, h := range e.Holders {
			names[i] = h.String()
		}
		fmt.Fprintf(&b, ", held by %s", strings.Join(names, ", "))
	}
	b.WriteString("; close them or eject with --force")
	if e.Err != nil {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Unwrap returns the tool's failure.
func (e *BusyError) Unwrap() error { return e.Err }
