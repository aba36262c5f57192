// Package disks holds the use cases both front ends run: the CLI (package
// main) and the menu (package tray) make, eject, save, refresh, restore and reclaim
// disks, and mount presets, only through it. Each operation on one disk
// holds that disk's lock, across processes, so a save never meets an eject
// and two creates of one name never stack two disks on one mount point.
//
// Nothing here prints: operations return results, report progress through a
// ramdisk.ProgressFunc and tell events (the plan, before a disk is made)
// through callbacks; the front ends decide what to show.
//
// # Files in the data folder
//
// Besides the keeper's stores and journals (package keeper: the fill
// record of a restore or load, restoring/; a reclaim's, reclaiming/) and
// the caches' (package cache), disks keeps, under RAMBar's data folder,
// with KEY the disk's name made a file name by the one rule
// (internal/record: exact on Linux, where "Work" and "work" are two
// disks; folded on macOS; a record an older RAMBar kept under the other
// rule's key is still read):
//
//	locks/KEY.lock         the per-disk flock, KEY folded on every system;
//	                       never removed
//	options/KEY.json       the extras the disk was made with (volopts.go)
//	detached/KEY-DEV.json  a disk ejected while busy whose memory is held
//	made/HASH.json         the disks this data folder made, with their
//	                       volume's identity (internal/diskid; written by
//	                       the keeper): eject, eject --all, bench and the
//	                       menu's Eject All act on these, and refuse or
//	                       leave alone the others (identity.go)
//	inplace/KEY.json       a Mirror disk in place (create --in-place): its
//	                       folder, its hidden copy and the step reached
//	inplace/KEY            the folder's hidden copy: a private bind mount of
//	                       the folder (Linux), an empty folder otherwise
//
// The records are written whole and durably and read as untrusted input
// (internal/record): bounded, and a damaged record errs on the side of
// keeping data. Leftovers (doctor) lists every step a journal holds open.
//
// # Mirror in place
//
// A Mirror disk in place is loaded from its folder and then mounted over
// it, so the folder's own path serves the disk. The folder's files stay
// reachable to RAMBar alone, for the load, every write-back, and a RAMBar
// started after a crash (keeper.Keeper.Through names the folder they
// open):
//
//   - Linux: a bind mount of the folder at DATA/inplace/KEY (folders 0700),
//     made before the disk covers the folder and made private at once, so
//     the mount over the folder does not propagate to it even when the
//     folder's file system shares its mounts (/ under systemd). The disk
//     covers the folder with a second bind, of its own mount point, which
//     stays where RAMBar lists and saves it. A descriptor opened before the
//     mount would do for one process, but does not outlive it: after a
//     kill -9 the folder beneath the disk would be out of reach until the
//     disk was ejected; the bind mount is there for the next RAMBar, and a
//     restart drops both mounts, leaving the folder as of its last
//     write-back. Both binds are made through descriptors opened with no
//     symlink followed (the folder is the user's).
//   - macOS: there is no bind mount, and a volume is mounted in one place
//     only: `diskutil mount -mountPoint FOLDER` moves it over the folder.
//     A save takes it off (diskutil unmount, then mount at its own mount
//     point), writes back through the folder's path, and covers it again;
//     a shell inside the folder then keeps the save from running, and says
//     so. A descriptor kept from before the mount was the other choice:
//     it would let a save run with the folder in use, but not survive a
//     RAMBar restart, and the write-back opens folders by path.
//
// Each step is written to the record before it is taken: hiding (the
// bind), loading, covering, in place; and for an eject: uncovering (after
// the write-back), ejecting, unhiding. settleInPlace, run under the disk's
// lock by the next create, save or eject, ends any cut-short step one way:
// a disk still mounted and fully loaded covers its folder again (a create
// is finished, an eject undone); a disk that is gone leaves the folder
// showing its last write-back, and the bind and record are removed; a disk
// whose load did not finish is left uncovered, incomplete as any Mirror
// disk would be; a disk unmounted by hand from its own mount point while
// it still covers the folder is mounted there again (Reattach) and goes on. So the folder's path always shows the disk or the folder
// as of its last write-back. The eject is: write back, uncover (busy: a
// *BusyError naming the holders, saying `rambar save NAME` writes back
// now, and nothing changed), write back again what was written through the
// folder's path meanwhile, eject the disk, remove the bind. Leftovers
// (doctor) lists a record whose step was cut short or whose disk is gone.
package disks
