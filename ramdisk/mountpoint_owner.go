package ramdisk

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Who may stand between a mount point's check and its mount. A folder on
// the way to a mount point, from / down to the folder the disk covers, is
// safe when no user but root and the disk's user can put anything else in
// the disk's way (rename a folder, swap it for a symbolic link), as sshd's
// StrictModes asks of the files it trusts:
//
//   - every folder on the way is owned by root or by the disk's user;
//   - none is writable by its group or by others, except a folder owned by
//     root with the sticky bit (/tmp, /var/tmp, /dev/shm): there only the
//     owner of an entry can rename or remove it, and the entry on the way
//     is owned by root or the disk's user by the first rule.
//
// Group write is refused even when the group holds the disk's user alone:
// who is in a group can change after the check.

// PathStep is one folder on the way to a mount point, as lstat saw it.
type PathStep struct {
	Path string
	UID  int
	Mode fs.FileMode
}

// CheckPathSteps checks the folders on the way to a mount point (steps[0]
// is /, each next one inside the one before) for the disk's user uid, and
// says why one of them could be put aside by another user ("" when none
// can).
func CheckPathSteps(steps []PathStep, uid int) string {
	for i, s := range steps {
		if s.Mode&fs.ModeSymlink != 0 {
			return s.Path + " is a symbolic link"
		}
		if !s.Mode.IsDir() {
			return s.Path + " is not a folder"
		}
		if s.UID != 0 && s.UID != uid {
			return fmt.Sprintf("%s belongs to another user (uid %d), who could swap what is in it for something else before the disk is mounted", s.Path, s.UID)
		}
		if i == len(steps)-1 {
			break // the folder the disk covers: what is in it does not matter
		}
		if w := s.Mode.Perm() & 0o022; w != 0 && (s.UID != 0 || s.Mode&fs.ModeSticky == 0) {
			by := "others"
			if w == 0o020 {
				by = "its group"
			}
			return fmt.Sprintf("%s is writable by %s (mode %04o), who could swap what is in it for something else before the disk is mounted", s.Path, by, s.Mode.Perm())
		}
	}
	return ""
}

// pathSteps lstats every folder from / down to dir (which exists, and has
// no symbolic link in it).
func pathSteps(dir string) ([]PathStep, error) {
	dir = filepath.Clean(dir)
	paths := []string{"/"}
	p := ""
	for _, c := range strings.Split(strings.TrimPrefix(dir, "/"), "/") {
		if c == "" {
			continue
		}
		p += "/" + c
		paths = append(paths, p)
	}
	steps := make([]PathStep, 0, len(paths))
	for _, p := range paths {
		st, err := os.Lstat(p)
		if err != nil {
			return nil, err
		}
		steps = append(steps, PathStep{Path: p, UID: owner(st), Mode: st.Mode()})
	}
	return steps, nil
}

// Invoker is the user RAMBar works for, the one rule every part follows
// (InvokerOf).
type Invoker struct {
	UID, GID int
	// Behind: running as root for that user (sudo, pkexec).
	Behind bool
}

// InvokerOf is the user RAMBar works for, given the effective user id and
// the environment (getenv): not as root, this process's user; as root
// under sudo, SUDO_UID and SUDO_GID, and under pkexec, PKEXEC_UID. A user
// or group is a decimal number below 2^32-1 (that value means "none");
// a group that is not given or not valid is the user's primary group (else
// this process's). Values that are not valid are ignored: root itself.
func InvokerOf(euid int, getenv func(string) string) Invoker {
	if euid != 0 {
		return Invoker{UID: os.Getuid(), GID: os.Getgid()}
	}
	for _, k := range []string{"SUDO", "PKEXEC"} {
		uid, ok := idOf(getenv(k + "_UID"))
		if !ok {
			continue
		}
		gid, ok := idOf(getenv(k + "_GID"))
		if !ok {
			gid = primaryGroup(uid)
		}
		return Invoker{UID: uid, GID: gid, Behind: true}
	}
	return Invoker{UID: os.Getuid(), GID: os.Getgid()}
}

// Invoking is InvokerOf this process.
func Invoking() Invoker { return InvokerOf(os.Geteuid(), os.Getenv) }

// idOf reads a user or group id: a decimal number below 2^32-1.
func idOf(s string) (int, bool) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 1<<32-1 {
		return 0, false
	}
	return int(n), true
}

// primaryGroup is the primary group of user uid, else this process's group.
func primaryGroup(uid int) int {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		if g, ok := idOf(u.Gid); ok {
			return g
		}
	}
	return os.Getgid()
}
