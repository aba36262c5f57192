package keeper

import (
	"rambar/snapstore"
	"rambar/tree"
)

// What the use cases (package disks) need of reading trees, through the
// Keeper's package: disks talks to the Keeper only.

// MarkerName is the file at a disk's root by which older RAMBars knew a
// disk (reserved: never saved, loaded or written back).
const MarkerName = tree.MarkerName

// Progress reports how far a long step has come.
type Progress = tree.Progress

// ProgressFunc receives progress reports.
type ProgressFunc = tree.ProgressFunc

// Digest is a tree's content digest: a line per path.
type Digest = tree.Digest

// DigestOf is the digest of the tree at root (with its times or without).
func DigestOf(root string, withTimes bool) (Digest, error) { return tree.DigestOf(root, withTimes) }

// NotKept is a path a save could not keep, or an attribute a restore could
// not set, and why.
type NotKept = tree.NotKept

// Safety is a safety snapshot's label (snapstore.Safety): what kind, of
// which snapshot, and the paths it keeps that were nowhere else.
type Safety = snapstore.Safety

// The kinds of safety snapshot: saved before a forced restore, or marked
// as holding what a Mirror folder lacks.
const (
	SafetyRestore   = snapstore.SafetyRestore
	SafetyUnwritten = snapstore.SafetyUnwritten
)

// MountError says a removal met a mount point inside what it was to
// remove (or a check found one before anything changed) and left it.
type MountError = tree.MountError

// RemoveAll removes path and everything beneath it, through descriptors,
// never following a symlink and never entering, emptying or removing a
// mount point (tree.RemoveAll): a staging copy, a cache's fallback folder.
func RemoveAll(path string) error { return tree.RemoveAll(path) }

// MakeFolders makes each folder (clean relative paths) under root through
// descriptors, never following a symlink out of it (tree.MakeFolders).
func MakeFolders(root string, folders []string) error { return tree.MakeFolders(root, folders) }

// EmptyFolder removes everything in the folder root but the names keep
// holds (nil: none), as RemoveAll removes each (tree.Empty).
func EmptyFolder(root string, keep func(name string) bool) error { return tree.Empty(root, keep) }
