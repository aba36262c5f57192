// Package tree reads and makes trees of files through directory
// descriptors: the scan of a disk or a folder (getdents and statx, a
// large folder's entries stat'ed by a goroutine per core, in path order),
// each path's metadata (type, mode, owner, times, extended attributes and
// ACLs, protection flags, hard links, a sparse file's data ranges), the
// copy of bytes (kernel copies, ranges around holes, direct I/O for large
// files), flushes (syncfs, fdatasync; on macOS F_BARRIERFSYNC and
// F_FULLFSYNC), opening beneath a folder without following a symlink
// (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, O_NOFOLLOW_ANY), renames
// that refuse to replace or that exchange, the owner restored paths get
// under sudo, a file's read lease while it is copied, the inotify watch
// that tells whether a scanned tree held still, a walk of a folder by
// descriptors that never enters another file system (a Mirror folder's),
// and the one removal of trees RAMBar has: through descriptors, never
// entering, emptying or removing a mount point (RemoveAt, Empty).
//
// It owns the Entry, the description of one path a scan gives and a build
// makes; an entry's Obj and a build's ObjRef name where bytes are kept or
// read, but what they name is the caller's business: tree never decides
// what is saved, which version of a path wins, or where a store keeps
// anything, and it never reads or writes a snapshot, an index or a mirror
// folder's record. What a scan leaves out is the one rule of the disk it
// knows (IsReserved: RAMBar's own files, the file system's own folders).
//
// # Files
//
//	scan.go, scantree.go, scan_*.go  the scan: workers, order, reserved names
//	entry.go, meta.go, idents.go     entries, their metadata, hard links
//	dirtree.go, beneath_*.go         opening and making paths beneath a folder
//	fdwalk.go                        walking a folder by descriptors, hashing files
//	copy.go, sparse.go, direct*.go   copying bytes: kernel copies, holes, direct I/O
//	source.go                        where a build reads bytes (ObjRef)
//	flags_*.go                       protection flags, no-replace renames, exchanges
//	flush_*.go, sys_*.go             flushes and what differs between the systems
//	owner.go, roottimes.go           owners under sudo; a root folder's times
//	lease_*.go                       a file leased while it is copied (Linux)
//	still_*.go                       whether a scanned tree held still (inotify)
//	digest.go                        content digests of trees (Reclaim, tests)
//	remove*.go, mounts*.go           removals that leave mounts alone; the mount table
//	progress.go, pool.go             progress reports, the worker pool
package tree
