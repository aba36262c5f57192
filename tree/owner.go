package tree

import (
	"os"
	"strconv"
)

// Who a restored path belongs to. Not as root: whoever restores (a chown
// is not even tried). As root: the owner the store recorded, and for
// paths of stores that recorded none (version 1 and 2 manifests), the
// owner the restore makes (the disk's, for its root). Under sudo (euid 0
// with SUDO_UID and SUDO_GID set): the invoking user, for every path,
// whatever the store recorded. A sudo'd restore reads the user's own
// data folder, which the user (or anyone who can write it) may have
// crafted: honouring a recorded owner other than the user would let such
// a store plant root's files, setuid ones included, on a disk the user
// can reach.

// sudoer is the user who ran RAMBar through sudo.
type sudoer struct {
	Uid, Gid int
	Ok       bool // running as root under sudo, SUDO_UID and SUDO_GID valid
}

// underSudo is read once from the environment.
var underSudo = sudoerOf(asRoot, os.Getenv)

// sudoerOf reads the invoking user from SUDO_UID and SUDO_GID (getenv),
// when root; values that are not user and group numbers are ignored.
func sudoerOf(root bool, getenv func(string) string) sudoer {
	if !root {
		return sudoer{}
	}
	uid, err1 := strconv.ParseUint(getenv("SUDO_UID"), 10, 32)
	gid, err2 := strconv.ParseUint(getenv("SUDO_GID"), 10, 32)
	if err1 != nil || err2 != nil || uid == 1<<32-1 || gid == 1<<32-1 {
		return sudoer{}
	}
	return sudoer{Uid: int(uid), Gid: int(gid), Ok: true}
}

// ownerOf is the owner and group a restore gives the path of e, and
// whether it sets them at all.
func ownerOf(e Entry) (uid, gid int, chown bool) {
	switch {
	case !asRoot:
		return 0, 0, false
	case underSudo.Ok:
		return underSudo.Uid, underSudo.Gid, true
	case e.NoOwner:
		return 0, 0, false
	}
	return int(e.UID), int(e.GID), true
}
