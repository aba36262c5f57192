// Package foldersync is a Mirror disk's folder sync: which folders may be
// mirrored (CheckFolder: never a system folder, another file system, a
// network volume or RAMBar's own data), the load of a folder into a disk,
// the record of the last load or write-back (its binary files, a base in
// blocks and a delta), the paths the disk changed since that record, the
// plan that decides which version each path gets and the conflict rule
// (conflict.go: a path changed on both sides keeps both, the folder's as
// NAME.rambar-conflict-YYYYMMDD-HHMMSS.EXT; inside .git the folder's
// wins), and the per-path write-back: each new version under a temporary
// name (TempPrefix) in its own folder, flushed, then renamed over its path
// once a last look finds the path as the plan saw it; folders made whole
// before they appear; deletions last, after a second look at the disk.
//
// It reads the disk's snapshots through package snapstore and the folder
// and the disk through package tree, always by directory descriptors
// (nothing followed, nothing written outside the folder). It never saves
// or restores a disk, never takes the store's lock (the Keeper, package
// keeper, holds it around a load and a write-back) and never decides when
// to sync.
//
// # Files
//
//	folderpath.go, mounts_*.go    which folders may be mirrored (CheckFolder)
//	netfs_*.go                    network and FUSE file systems
//	folderload.go                 the load (the folder read by tree's WalkFolder)
//	syncrec.go, synccodec.go,     the record of the last load or write-back:
//	syncbase.go, syncstore.go     sides, binary files (sync, base in blocks), delta
//	changes.go                    the paths the disk changed since the record;
//	                              the second look at the disk before a deletion
//	plan.go, conflict.go          which version each path gets; conflict copies
//	gitstate.go                   .git: the folder's state; lock files never copied
//	writeback.go, place.go,       the write-back: look, plan, new versions under
//	newfiles.go, wbdirs.go,       temporary names, renames, its folders,
//	wbdelete.go, journal.go       deletions, metadata; the list of temporary names
package foldersync
