// Package mirrorfolder says which folders may be Mirror folders, and which
// disk mirrors each.
//
// The folder rules (Check) refuse, each with one line saying why (wrapping
// ErrBadFolder), a folder that is not an absolute real path (no symlink in
// it), the whole file system, one holding RAMBar's data folder or a home as
// a whole, one inside a RAM disk or RAMBar's data folder, one holding a RAM
// disk's mount point, a mount point of another file system and one holding
// one, and a missing folder unless it is to be made (Rules.Create;
// ErrFolderMissing).
// NetworkFS names the network file system a folder is on (statfs magic;
// for FUSE, mountinfo's type: sshfs, rclone...), for the Keeper's rules of
// a disk mounted over its folder.
//
// The claims (Claims) keep one disk per folder: a file per mirrored folder
// in DATA/claims, KEY.json (KEY: a hash of the folder's real path, device
// and inode), naming the disk that mirrors it, written and read under
// DATA/claims/lock across processes. A folder that a live claim of another
// disk holds, or a folder inside or around one, is refused (ErrClaimed). A
// claim is live while its disk is mounted where it was with its marker,
// which the Keeper tells (Claims.Live): a stale claim is taken over.
//
// It knows nothing of snapshots, of the folder sync (package foldersync)
// or of the Keeper (package keeper), which imports it: the Keeper checks
// the rules before a Mirror disk is set up, loaded, written back or
// refreshed, and takes the claim when it is loaded; the use cases (package
// disks) reach it through the Keeper only.
//
// # Files
//
//	folderpath.go        the folder rules: Check, Rules, ErrBadFolder
//	netfs_*.go           NetworkFS: a folder on a network file system
//	claim.go             the claims: one disk per folder (DATA/claims)
package mirrorfolder
