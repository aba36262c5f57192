// Package keeper keeps a RAM disk's contents on real storage: it saves a disk
// into a crash-safe store of snapshots (Keep contents), loads and writes back
// an ordinary folder (Mirror folder), restores a disk from either, and
// reclaims the memory a disk pins by moving its contents out and back.
//
// # Store layout
//
// Each kept or mirrored disk has a store folder under the app's data folder:
//
//	disks/NAME/state.json          mode, store id, mirror folder, snapshots,
//	                               autosave, set-aside snapshots
//	disks/NAME/last.json           when it was last saved (informational)
//	disks/NAME/objects/SAVE/N      file contents, immutable once written: one
//	                               file's bytes, or (a pack) several small
//	                               files' bytes one after another
//	disks/NAME/snapshots/ID.snap   one manifest per save: a header (counts,
//	                               base, the objects it uses) then paths with
//	                               their type, mode, owner, times, xattrs,
//	                               hard link, data extents and object;
//	                               a full manifest lists every path, a delta
//	                               only those changed since its base (a full
//	                               manifest) and those removed
//	disks/NAME/snapshots/ID.base   a full manifest no longer listed, kept
//	                               while a listed delta is based on it
//	disks/NAME/snapshots/ID.inuse  the label of a snapshot taken while the
//	                               disk was in use (it never held still
//	                               during the save): the paths that kept
//	                               changing; none when it was consistent
//	disks/NAME/current             the ID of the current snapshot
//	disks/NAME/index               identity (inode, ctime, mtime, size, mode)
//	                               and hard-link target of the disk's paths
//	                               as of the last save or restore, to skip
//	                               unchanged files unread; exactly the paths
//	                               of that snapshot; the contents' SHA-256 of
//	                               files watched for writes through shared
//	                               mappings
//	disks/NAME/mirror/             a Mirror disk's record of its last load,
//	                               write-back or refresh (sync, base-ID:
//	                               package syncrec) and the lists of
//	                               temporary names a write-back (pending)
//	                               or a refresh (refresh-pending) is making
//	claims/KEY.json                which mounted disk mirrors a folder (KEY:
//	                               the folder's real path, device, inode;
//	                               mirrorfolder/claim.go)
//	made/KEY.json                  the disks this data folder made, by name,
//	                               with their volume's identity and store id
//	                               (internal/diskid; KEY: the name by the one
//	                               rule of internal/record)
//	reclaim/NAME-TIME/             Reclaim's staging copy while it runs
//	reclaiming/KEY.json            a reclaim's step journal (reclaimlog.go;
//	                               KEY: the name by the one rule of
//	                               internal/record)
//	restoring/KEY.json             a fill's record: a restore or load that
//	                               has not finished (incomplete.go)
//
// A save copies only files whose identity changed into a fresh objects
// folder: files up to 64 KiB packed one after another into packs of about
// 8 MiB or 4,096 files, each written sequentially and pushed to the disk
// as it closes; larger files one object each (a clone where the file
// system can), pushed as they close from 8 MiB up; a hard-linked file
// once; a sparse file's data ranges only. It then writes the manifest,
// flushes both to stable storage (one syncfs on Linux; on macOS each file
// pushed with F_BARRIERFSYNC and one F_FULLFSYNC at the commit, never a
// full flush per file), and flips current atomically
// (internal/atomicfile). A restore reads each pack once, in order. A save
// with nothing changed reads only the index and the disk's metadata, and
// writes nothing. A save with a few changes writes a delta: the previous
// delta's changes merged with the new ones, on the same full base; it
// reads neither the old tree nor writes the whole new one. Once a delta
// would pass half its base, the save writes a full manifest instead (the
// compaction). Manifests and the index are versioned; stores written
// before deltas (version 1) still load. A kill -9, a full
// destination or a power cut at any point leaves current naming either the
// old manifest, whose objects are untouched, or the new one, whose objects
// were flushed before it was written. Objects no snapshot references
// (a save cut short) are removed by the next save.
//
// # Which disk is whose
//
// A kept or mirrored disk is known by its volume, not by a file in its
// tree: the data folder's record of each disk it made (made/, above) names
// the volume's identity (Linux: boot, device, root inode, file system id,
// file handle and birth time, from statx and statfs; macOS: the volume UUID
// diskutil info reports), and a mark on the disk's root folder, an
// extended attribute (Linux user.rambar, or trusted.rambar as root where
// user attributes are refused; macOS com.rambar.disk), names the data
// folder, user and store, and the identity it was written for. Why not a
// file, as older RAMBars wrote (.rambar-id): a file at the root is in the
// user's tree, so git status lists it on a disk mirroring a clone, git add
// commits it, git clean -fdx and rm -rf remove it (and the disk was then
// taken for one not kept), and cp -a copies it onto another disk. An
// attribute of the root folder is none of these: git, Finder and ls do not
// show it, tidying the root leaves it, and a copy of it names another
// volume than the one it lands on, so it is not trusted (Holds). Why both
// a record and a mark: the record is what this data folder trusts (a mark
// can be removed by hand, or not kept where a file system has no
// attributes); the mark tells another data folder (root's under sudo,
// another RAMBAR_HOME, another user) whose disk it is, so its eject
// refuses and names the owner, and puts the record back if it was lost.
// Neither is saved, loaded or written back: the mark is dropped from the
// root's attributes wherever a tree is read. A disk an older RAMBar made,
// with only .rambar-id, is taken on the first time it is looked at
// (recorded, marked, the file removed); .rambar-id at a disk's root stays
// reserved. Holds, Known and Whose in identity.go.
//
// # Kept work and settings
//
// Making a kept name again keeps its stored settings (snapshot count,
// autosave) unless options change them, and a smaller count is told, with
// the snapshots the next save deletes, before that save (SetupNotes).
// Mirroring a name whose store holds work saved while it was kept and that
// is in no folder (its current snapshot was never loaded from or written
// to one) is refused with the choices (ErrKeptWork): made kept again it
// restores that work; set aside (Options.SetAsideKept) its snapshot is
// kept by every prune; forgotten it goes.
//
// # What is kept
//
// Files (sparse ones with their holes: only the data ranges are stored,
// and written back at their offsets), folders, symlinks and FIFOs, with
// permission bits (setuid, setgid, sticky), owner and group (set back when
// RAMBar runs as root; under sudo, SUDO_UID and SUDO_GID set, every
// restored path is the invoking user's whatever the store recorded: the
// user's store is untrusted, and a recorded root owner would let a crafted
// one plant root's setuid files; tree/owner.go), access and modification times to the nanosecond
// (any time the file system holds, past 2262), extended attributes
// (user.*, POSIX ACLs; as root on Linux also security.* and trusted.*; on
// macOS all but com.apple.system.*), and hard links as links (the bytes
// stored once). Sockets and device nodes cannot be kept: a save names
// them in Result.NotKept. An xattr the system refuses to set on restore
// (macOS's com.apple.provenance, com.apple.macl, com.apple.rootless) is
// named there too, and the restore goes on. Not saved: RAMBar's mark on a
// disk's root (above), an older RAMBar's .rambar-id there, and folders the
// file system made itself: ext4's lost+found (inode 11 at the root of an
// ext4 disk, as mkfs makes on zram) and, on macOS, .fseventsd,
// .Spotlight-V100, .Trashes, .TemporaryItems, .DocumentRevisions-V100 and
// the files the engine writes (.rambar, .metadata_never_index) at the root;
// the same names anywhere else, and lost+found on tmpfs, are contents.
//
// # A disk in use
//
// A disk is in use while it is saved. A file is stored only as a version
// that existed (snapshot/savecopy.go: the same identity before and after its copy,
// leased first when changed in the last second, its previous version kept
// when it never holds still); files mapped shared and writable are
// compared by content (snapshot/watch.go, mapped*.go); a snapshot is consistent
// only when every path is seen unchanged after its scan (by its copy, or
// by a look at the whole disk made meanwhile: snapshot/settle.go, look.go; on Linux
// an inotify watch the scan set on every folder answers instead when
// nothing moved, so a quiet disk is not read twice: tree/still_linux.go), else
// the save copies again, and a disk that never holds
// still gets a snapshot labelled taken while in use (snapshot/splice.go, inuse.go).
// Every manifest is checked as it is written with the rules it is read
// with (snapstore/treecheck.go): a hard link's target is part of what a save
// compares, so an entry reused from the index never names a path that
// moved.
//
// # Untrusted stores
//
// Whatever is in a store may have been crafted by someone else with access
// to the data folder. Manifests and the index are checked when read
// (snapstore/validate.go; the decoders are fuzzed): snapshot IDs have one fixed form,
// paths are clean and relative and listed once, in order, each inside a
// folder of the tree, object references name objects/SAVE/N and nothing
// else, counts and sizes are bounded. Restores, loads and write-backs make
// every file, folder and symlink through directory descriptors (tree.DirTree:
// openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS on Linux, O_NOFOLLOW_ANY on
// macOS) and read objects the same way, so nothing is written outside the
// disk and no symlink is followed that the restore did not just make.
//
// # Packages
//
// The contents are seven packages, each importing only those above it in
// this list (app/layers_test.go keeps it so):
//
//	tree        reading and making trees through descriptors: the scan,
//	            entries and their metadata, copies, flushes, flags, owners
//	snapstore   the store's folder: manifests and their formats, the index,
//	            in-use labels, validation, the commit, prune
//	syncrec     a Mirror disk's sync record: its format, its base in
//	            blocks and delta, open, commit and compaction
//	snapshot    saves and restores of a disk: the plan, copies held still,
//	            the rounds of a disk in use, tree builds and their room
//	mirrorfolder  which folders may be mirrored (the folder rules, network
//	            file systems) and which disk mirrors each (the claims)
//	foldersync  Mirror folders: the write-back's plan and conflict rule,
//	            the refresh's decision, and the one applier of both, the
//	            load too
//	keeper      this package: the Keeper, which uses the six for each disk
//
// This package owns the Keeper: a disk's state and settings, which disk is
// whose, when to save, restore, load, write back, refresh and reclaim,
// autosave and sleep, and the store's lock around each; the use cases
// (package disks) talk to it only. It never reads or writes a tree, a
// manifest or a mirror folder itself.
//
//	keeper.go, state.go, load.go  the Keeper: setup, state, load, save, restore, guards
//	identity.go, takeon.go        which disk is whose: records, marks, Holds
//	holds.go                      which snapshot a disk holds: Holding, Matches
//	setupcheck.go                 kept work a mirror would bury; settings notes
//	restoresafe.go                a forced restore's safety snapshot; the refusal's unsaved paths
//	unwritten.go                  a Mirror save the folder never got: marked, named at load
//	autosave.go, sleep_*.go       saves on a timer and before sleep
//	reclaim.go, holders_*.go      Reclaim: out to staging, eject, make again, back
//	reclaimlog.go, reclaimresume.go  its journal; a stopped reclaim finished or undone
//	incomplete.go, pending.go     the fill record (ErrIncomplete); pending temporary names
//	mirror.go                     a Mirror disk's load and write-back, wired to the Keeper
//	inplace.go                    in place: the folder opened, CheckInPlace
//	claim.go                      one disk per folder: mirrorfolder's claims, live while their disk is
//	refresh.go                    the refresh: saves around foldersync's Refresh; FolderChanges
//	result.go, facade.go          what the Keeper returns; what disks needs of tree
//
// A Mirror folder is the user's, not a copy. Its load, its write-back
// (under the store's lock, after each save) and its refresh (under the
// lock, between two saves) are package foldersync's (see its doc): each
// path of the folder, and of the disk, is at every moment its old version
// or its new one, never torn, never missing; what changed on both sides is
// kept both ways; a kill at any point leaves at worst temporary names the
// next run removes. A disk without the record of a finished load is never
// written back. One disk mirrors a folder at a time (claims/).
//
// A Mirror disk in place (State.InPlace, create --in-place) is mounted
// over its folder once loaded; disks does the mounting (see its package
// doc). Here only one thing changes: folderDir (inplace.go) is the one
// place that says which folder the load and the write-back open, the
// folder's path or, through Keeper.Through, the folder's hidden copy (a
// bind mount of it, a mount point by design, so the check that the folder
// is no mount point is made on its path instead). Every guard of the
// write-back holds there unchanged. CheckInPlace refuses folders a disk
// may not cover: the home folder itself, one on a network file system
// (statfs magic; for FUSE, mountinfo's type: sshfs, rclone...), one
// another user owns (under sudo, other than SUDO_UID). A disk in place
// has no refresh: its folder's path is the disk, and nothing else can
// change the hidden copy.
package keeper
