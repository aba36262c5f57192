// Package foldersync is a Mirror disk's folder sync: the three ways a disk
// and its folder are brought together: the load of a folder onto a fresh
// disk, the write-back of a disk's snapshot into the folder after each
// save, and the refresh of the disk from the folder. The record of the last
// time they were (its format and its files: a base in blocks and a delta)
// is package syncrec's; this package reads it and says what goes in it.
//
// A write-back looks in the folder only at the paths whose disk version
// differs from the record and compares each with it, by content (plan.go):
// what changed in the folder outside RAMBar is kept, the disk's version is
// written only where the folder still holds what the disk started from,
// and a path changed on both sides keeps both (conflict.go: the disk's
// under the name, the folder's as NAME.rambar-conflict-YYYYMMDD-HHMMSS.EXT;
// inside .git the folder's wins, gitstate.go). A refresh walks the folder
// comparing identities with the record and takes each path the folder
// changed onto the disk where the disk still holds the record's version
// (refresh.go); what the disk changed meanwhile is left to the save after
// it, whose write-back keeps both. That write-back starts from what the
// refresh left (Refresh.Bases): what the folder changed again meanwhile is
// the folder's, for the next refresh, never undone.
//
// Both directions, and the load, make their versions by one applier
// (apply.go: its phases), through directory descriptors on both sides,
// never following a symlink, never entering another file system: each
// path is at every moment its old version or its new one, never torn,
// never missing; every folder and every path not replaced keeps its
// inode; a kill at any point leaves at worst temporary names (temps.go),
// which the next run on that side removes.
//
// It reads the disk's snapshots through package snapstore, the trees
// through package tree and the record through package syncrec. It never
// saves or restores a disk, never takes the store's lock (the Keeper,
// package keeper, holds it around each sync), never decides when to sync,
// and never judges which folder may be mirrored (package mirrorfolder's
// rules, which the Keeper applies).
//
// # Files
//
//	changes.go                    the paths the disk changed since the record;
//	                              the second look at a side before a deletion
//	plan.go, conflict.go,         the write-back's plan and conflict rule; .git
//	gitstate.go
//	writeback.go, wbapply.go,     the write-back: look, plan, the disk's versions
//	wbside.go, links.go           from the store, conflict copies, hard links
//	refresh.go, refreshscan.go    the refresh: the folder's changes, the decision
//	folderload.go                 the load
//	apply.go, applyput.go,        the applier: its phases, renames, deletions,
//	make.go, dirs.go, temps.go    metadata, making a version, folders, temporary names
package foldersync
