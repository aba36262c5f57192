package tree

import "rambar/ramdisk"

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

// underSudo is the user RAMBar works for (ramdisk.Invoking: the one rule),
// read once from the environment.
var underSudo = ramdisk.Invoking()

// ownerOf is the owner and group a restore gives the path of e, and
// whether it sets them at all.
func ownerOf(e Entry) (uid, gid int, chown bool) {
	switch {
	case !asRoot:
		return 0, 0, false
	case underSudo.Behind:
		return underSudo.UID, underSudo.GID, true
	case e.NoOwner:
		return 0, 0, false
	}
	return int(e.UID), int(e.GID), true
}
