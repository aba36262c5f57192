package ramdisk

import (
	"fmt"
	"strings"

	"rambar/i18n"
)

// Sentinel errors. Engines wrap them, keeping the tool's own words:
//
//	fmt.Errorf("diskutil eject %s: %w: %s", dev, ramdisk.ErrBusy, stderr)
//
// so callers test with errors.Is and users still read what the tool said.
var (
	// ErrBusy: the volume is in use; a BusyError names who holds it.
	ErrBusy = i18n.New("disk is busy")
	// ErrNotFound: no such RAM disk (never made, or already gone).
	ErrNotFound = i18n.New("no such RAM disk")
	// ErrExists: a volume with that name is already mounted.
	ErrExists = i18n.New("a disk with that name is already mounted")
	// ErrUnsupported: this engine or machine cannot do it.
	ErrUnsupported = i18n.New("not supported here")
	// ErrNeedsAdmin: the operation needs administrator rights that were not available.
	ErrNeedsAdmin = i18n.New("needs administrator rights")
	// ErrCancelled: the user cancelled a prompt (osascript -128, pkexec dismissed).
	ErrCancelled = i18n.New("cancelled")
	// ErrTooLarge: the plan was refused for memory reasons; --force overrides.
	ErrTooLarge = i18n.New("too large for this machine's memory")
	// ErrNoSpace: the destination has no room for what must be written.
	ErrNoSpace = i18n.New("not enough space")
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

func (e *BusyError) Error() string { return e.said().Error() }

// said is the error's sentence, translatable: who holds the volume and the
// tool's failure, when known.
func (e *BusyError) said() *i18n.Error {
	names := make([]string, len(e.Holders))
	for i, h := range e.Holders {
		names[i] = h.String()
	}
	held := strings.Join(names, ", ")
	var err error
	switch {
	case held != "" && e.Err != nil:
		err = i18n.Errorf("%s is busy, held by %s; close them or eject with --force (%v)", e.Volume, held, e.Err)
	case held != "":
		err = i18n.Errorf("%s is busy, held by %s; close them or eject with --force", e.Volume, held)
	case e.Err != nil:
		err = i18n.Errorf("%s is busy; close them or eject with --force (%v)", e.Volume, e.Err)
	default:
		err = i18n.Errorf("%s is busy; close them or eject with --force", e.Volume)
	}
	te, _ := i18n.Translatable(err)
	return te
}

// As lets errors.As find the error's translatable sentence (i18n.Error).
func (e *BusyError) As(target any) bool {
	if t, ok := target.(**i18n.Error); ok {
		*t = e.said()
		return true
	}
	return false
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Unwrap returns the tool's failure.
func (e *BusyError) Unwrap() error { return e.Err }
