package disks

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"rambar/keeper"
	"rambar/ramdisk"
)

// pinned is a mounted disk held open while it is saved: an open directory
// on it makes a plain unmount by anyone else fail (EBUSY) until the save is
// done, and its device and marker, read at the start, are checked again at
// the end, so a save that read something else (a lazy unmount left the
// empty mount point) is reported, never taken for the disk.
type pinned struct {
	f      *os.File
	dev    uint64
	marker string
}

// pin opens v's mount point and reads its device and marker.
func pin(v ramdisk.Volume) (*pinned, error) {
	f, err := os.OpenFile(v.MountPoint, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("save %s: %w", v.Name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, fmt.Errorf("save %s: fstat %s: %w", v.Name, v.MountPoint, err)
	}
	return &pinned{f: f, dev: uint64(st.Dev), marker: keeper.MarkerOf(v.MountPoint)}, nil
}

// check reports whether v's mount point is still the disk pinned at the
// start: same device, and the same marker, or the store's own (id: a save
// marks a disk it saves), or any when there was none.
func (p *pinned) check(v ramdisk.Volume, id string) error {
	var st unix.Stat_t
	err := unix.Stat(v.MountPoint, &st)
	if err == nil && uint64(st.Dev) == p.dev {
		if m := keeper.MarkerOf(v.MountPoint); p.marker == "" || m == p.marker || m == id {
			return nil
		}
	}
	return fmt.Errorf("save %s: %w: the disk was unmounted or replaced while it was saved, so this save may not be of it; "+
		"see 'rambar snapshots %s' and restore the one before if need be", v.Name, ramdisk.ErrNotFound, v.Name)
}

func (p *pinned) release() { p.f.Close() }
