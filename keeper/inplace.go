package keeper

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"rambar/mirrorfolder"
	"rambar/ramdisk"
)

// folderDir is the one place that says which folder a Mirror disk's load
// and write-back open: the folder's own path, or (through set) the folder
// the Keeper's Through names instead, the hidden copy of a folder the disk
// is mounted over.
func (k *Keeper) folderDir(st State) (dir string, through bool, err error) {
	if k.Through == nil || !st.InPlace {
		return st.MirrorPath, false, nil
	}
	dir, err = k.Through(st)
	if err != nil {
		return "", false, err
	}
	if dir == "" {
		return st.MirrorPath, false, nil
	}
	return dir, true, nil
}

// CheckInPlace refuses a folder that a disk may not be mounted over (create
// --in-place), each with a one-line reason wrapping ErrBadFolder: the home
// folder itself, a folder on a network file system (a RAM disk over it
// would outlive the connection and confuse its other clients), and a
// folder another user owns (mounting over it would take it from them).
// The invoking user is the process's, or under sudo SUDO_UID's. What
// CheckFolder refuses (mount points, folders holding one, RAMBar's own
// folders) and folders another disk mirrors (claims) are checked besides.
// A missing folder passes (it is made, the invoking user's).
func CheckInPlace(path, home string) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("mirror folder %s in place: %s: %w", path, fmt.Sprintf(format, a...), mirrorfolder.ErrBadFolder)
	}
	clean := filepath.Clean(path)
	for _, h := range append([]string{home}, sudoHome()...) {
		if h != "" && filepath.Clean(h) == clean {
			return bad("it is the home folder itself")
		}
	}
	fi, err := os.Lstat(clean)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return bad("%v", err)
	}
	if fs := mirrorfolder.NetworkFS(clean); fs != "" {
		return bad("it is on a network file system (%s)", fs)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if uid := ramdisk.Invoking().UID; int(st.Uid) != uid {
			return bad("it belongs to another user (uid %d, not %d)", st.Uid, uid)
		}
	}
	return nil
}
