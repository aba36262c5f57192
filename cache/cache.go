// Package cache switches cache folders onto RAM disks, without the reboot
// trap (TmpDisk #47). A target
// folder T is switched onto disk D, mounted at MP, like this (DATA is
// RAMBar's data folder, ID the target's cacheID, NAME D's name in lower case):
//
//	T                       -> DATA/cache-links/ID   (a link that never changes)
//	DATA/cache-links/ID     -> MP/Caches/ID
//	MP/Caches/ID               D's folder while D is mounted; below D, where
//	MP/Caches               -> DATA/cache-empty/NAME (ramdisk.FallbackLink)
//	DATA/cache-empty/NAME/ID   an ordinary folder, T's fallback
//	DATA/cache-saved/ID        T's old contents, put back at 'off'
//
// The engine leaves MP/Caches below the mount point before it mounts D
// (Plan.CacheFallback, WithFallback), and keeps MP while that link leads
// to a folder. So when D goes, whatever takes it (eject, umount -l, a
// crash, a reboot), T resolves to its fallback with nothing for RAMBar to
// do: eject and mount change no link. What apps wrote there while D was
// away is removed once D is mounted again (ToDisk).
//
// The middle link still changes, atomically (a new link renamed over it),
// in two cases: it follows D to a new mount point, and it points straight
// at the fallback when MP lost its link (Gone, point) or when D was
// mounted without one (by an older RAMBar, or by hand: such a disk takes no
// new target, and its caches are switched before RAMBar ejects it,
// ToFallback). T itself only ever changes by an atomic exchange
// (renameat2 RENAME_EXCHANGE, renamex_np RENAME_SWAP). A step of on or off
// cut short (kill -9) is finished, or undone, by the next cache command,
// 'rambar up' and the menu at start (Repair), from the record in
// DATA/caches/ID.json written before each step.
package cache

import (
	"context"
	"errors"

	"rambar/ramdisk"
)

// Disks is what the caches need of the use cases (package disks): the
// disks mounted now, one by name, the per-disk lock, the rule for names,
// and which disks and folders are mirrored (caches are kept out of them).
type Disks interface {
	List(ctx context.Context) ([]ramdisk.Volume, error)
	Find(ctx context.Context, name string) (ramdisk.Volume, error)
	Lock(ctx context.Context, name, doing string) (release func(), err error)
	SameName(a, b string) bool
	Caps() ramdisk.Caps
	// MirrorOf is the folder the mounted disk v mirrors, "" for none.
	MirrorOf(v ramdisk.Volume) string
	// MirrorFolders are the folders the data folder's disks mirror.
	MirrorFolders() []string
	// DropMountPoint removes the folder RAMBar made for disk name under
	// its mount root, when nothing is mounted there and it holds nothing
	// but a fallback link that leads nowhere (ramdisk.MountPointDropper).
	DropMountPoint(ctx context.Context, name string)
}

// Caches are the cache targets switched onto RAM disks, kept in the data
// folder.
type Caches struct {
	// Data is RAMBar's data folder; "" keeps nothing (ErrNoData).
	Data  string
	Disks Disks
	// Step, when set (tests), is told each step of on and off as it is
	// reached (tests kill the process there).
	Step func(step string)
}

// ErrNoData means there is no data folder (HOME is not set), so nothing is kept.
var ErrNoData = errors.New("no data folder: HOME is not set")

// StateOn is the state of a target switched on, settled.
const StateOn = "on"

// StateOf is the state of target's record ("" and false when it has none).
func (c *Caches) StateOf(target string) (string, bool) {
	r, ok := c.cacheRecordFor(target)
	return r.State, ok
}

// Fallback is the folder target falls back to while disk is away.
func (c *Caches) Fallback(disk, target string) string {
	return c.fallbackOf(cacheRecord{Disk: disk, ID: ID(target)})
}
