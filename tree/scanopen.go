package tree

import (
	"errors"
	"slices"

	"golang.org/x/sys/unix"
)

// How a scan opens the folders beneath the disk's top: never through a
// symlink, never across a mount (a folder swapped for a symlink between
// its parent's listing and its own read is a path that changed, never
// read through it), and how it tells a mount point from its parent's
// listing (named not kept, never entered).

// errMountRoot is lstatEntry's word for an entry that is the root of a
// mount (a bind mount of a folder or a file of the disk's own file system
// too), its status read all the same.
var errMountRoot = errors.New("the root of a mount")

// whyMount is why a mount point inside the disk is not kept: what it
// holds is not the disk's, and a scan never enters it.
const whyMount = "a mount point inside the disk: never entered (what is mounted there is not the disk's)"

// openFolder opens folder rel beneath top (the disk's top, device dev)
// for reading, leaving its access time alone where it can. A folder below
// the top is opened without crossing a symlink or a mount on the way or
// at its end (openFolderBeneath): a folder replaced by a symlink since
// its parent was listed is never read through it.
func openFolder(top int, rel string, dev uint64) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW
	if rel == "." {
		return openNoAtimeAt(top, ".", flags)
	}
	if ONoAtime != 0 {
		fd, err := openFolderBeneath(top, rel, flags|ONoAtime, dev)
		if !errors.Is(err, unix.EPERM) {
			return fd, err
		}
	}
	return openFolderBeneath(top, rel, flags, dev) // O_NOATIME needs the owner or root
}

// topDev is the device of the disk's top, open as top: o's when the scan
// read it once, else fstat'ed now (a rescan reads few folders).
func (o *Opts) topDev(top int) (uint64, error) {
	if o.hasDev {
		return o.dev, nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(top, &st); err != nil {
		return 0, err
	}
	return uint64(st.Dev), nil
}

// uniqNotKept sorts skipped paths by path and drops the same one named
// twice (a mount point a rescan read again, whose parent it did not).
func uniqNotKept(n []NotKept) []NotKept {
	sortNotKept(n)
	return slices.Compact(n)
}
