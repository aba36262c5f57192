// Package snapshot takes a disk's snapshots into its store and restores
// them: a save scans the disk (package tree), compares it with the index,
// copies only what changed (small files packed, large ones one object
// each, every file held still or leased while it is copied), writes and
// flushes the manifest as it is encoded, commits and prunes (package
// snapstore); a restore, a load and a reclaim build a tree from a
// snapshot or a folder, pack by pack, after checking the room it takes on
// the disk's file system.
//
// A disk is in use while it is saved, and this package owns what that
// means: a file is stored only as a version that existed (savehold.go),
// files mapped shared and writable are compared by content (watch.go,
// mapped*.go), a snapshot is consistent only when every path is seen
// unchanged after its scan (the scan's inotify watch, or a second look at
// every path: look.go), else the save copies again (settle.go), and a
// disk that never holds still gets a snapshot labelled taken while in use
// (splice.go, inuse.go).
//
// It knows nothing of Mirror folders (package foldersync) or their sync
// record (package syncrec), of which disk is whose or of the settings a
// disk is kept with (package keeper, the Keeper, decides when to save and
// what to restore). Store is one disk's store as a save and a restore use
// it.
//
// # Files
//
//	keptstore.go, saveresult.go   the store as saves and restores use it; a result
//	save.go                       a save's phases: plan (the scan diffed with the
//	                              index), copy, manifest, commit, index, prune
//	savecopy.go, savemanifest.go  the copy jobs and packs; the manifest written
//	                              as it is encoded and checked
//	savehold.go                   each file copied held still, or not taken
//	settle.go, splice.go          a save's rounds until the disk holds still; what
//	                              one that never does keeps
//	look.go                       the second look at every path
//	inuse.go                      the paths that kept changing
//	unsaved.go                    what a disk holds that its last save does not
//	watch.go, mapped*.go          files compared by content: mapped shared and
//	                              writable (/proc on Linux, lsof on macOS)
//	restore.go, restorepack.go    restores and every tree build (BuildTree);
//	                              packed files restored pack by pack
//	room_*.go                     the room a restore takes on each file system
//	copytree.go                   a tree copied as a reclaim copies it back
//	memlimit.go                   the soft memory limit while saves copy
package snapshot
