//go:build darwin

package tree

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// MountPoints lists the mounted file systems' mount points (getfsstat).
func MountPoints() ([]string, error) {
	n, err := unix.Getfsstat(nil, unix.MNT_NOWAIT)
	if err != nil {
		return nil, fmt.Errorf("getfsstat: %w", err)
	}
	buf := make([]unix.Statfs_t, n+8)
	n, err = unix.Getfsstat(buf, unix.MNT_NOWAIT)
	if err != nil {
		return nil, fmt.Errorf("getfsstat: %w", err)
	}
	out := make([]string, 0, n)
	for _, s := range buf[:n] {
		out = append(out, unix.ByteSliceToString(s.Mntonname[:]))
	}
	return out, nil
}
