package diskid

import (
	"errors"
	"fmt"
)

// ErrNoIdentity: the folder's identity cannot be read (it is gone, or the
// system tells no birth time and no mount id).
var ErrNoIdentity = errors.New("no volume identity")

// Of is the identity of the folder dir (a disk's mount point: its file
// system's root) as any process on this machine tells it now: boot, device,
// inode and birth time. Two calls agree while the same file system is
// mounted there; a file system made again there differs.
func Of(dir string) (string, error) {
	id, err := of(dir)
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrNoIdentity, dir, err)
	}
	return id, nil
}

// For is a disk's canonical identity: the engine's (identity, e.g. the
// volume UUID on macOS) when it gave one, else Of(mountPoint); "" when
// neither can be told.
func For(identity, mountPoint string) string {
	if identity != "" {
		return identity
	}
	id, _ := Of(mountPoint)
	return id
}
