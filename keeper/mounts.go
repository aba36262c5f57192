package keeper

import (
	"errors"
	"fmt"

	"rambar/tree"
)

// mountsRefusal is a step refused because something is mounted inside
// the disk it would empty: an ErrRefused and a *MountError.
type mountsRefusal struct{ error }

// Is makes the refusal an ErrRefused.
func (e mountsRefusal) Is(target error) bool { return target == ErrRefused }

// Unwrap is the *MountError.
func (e mountsRefusal) Unwrap() error { return e.error }

// RefuseMounts refuses verb (restore, reclaim) of disk name, before it
// changes anything, while the mount table lists a mount point beneath the
// disk's root (a folder of another file system, or a bind mount, inside
// the disk): clearing the disk would not remove it, and copying the disk
// would take another file system for its contents. The error says it in
// one line: "restore Work: /Volumes/Work/project is a mount of its own
// (another file system): unmount it first; nothing was changed". A mount
// table that cannot be read refuses as well.
func RefuseMounts(verb, name, root string) error {
	err := tree.CheckNoMounts(root)
	var me *tree.MountError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &me):
		return mountsRefusal{fmt.Errorf("%s %s: %w; nothing was changed", verb, name, err)}
	}
	return mountsRefusal{fmt.Errorf("%s %s: cannot tell what is mounted inside %s (%w); nothing was changed", verb, name, root, err)}
}
