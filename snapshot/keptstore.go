package snapshot

import (
	"rambar/snapstore"
	"rambar/tree"
)

// Store is one disk's store of snapshots as the Keeper uses it: the
// snapshots folder, and how its saves read the disk and its restores write
// files.
type Store struct {
	*snapstore.Store
	// CopyFile, when set, writes restored files (Keeper.CopyFile).
	CopyFile tree.CopyFunc
	// Caches: a Caches folder at the disk's top is contents (a Mirror
	// disk: `cache on` is refused there, so it is the folder's own), not
	// RAMBar's folder of app caches, which a kept disk's saves leave out.
	Caches bool
	// Spaced keeps the snapshots spaced in time (PruneSpaced) rather than
	// the newest: a disk saved continuously.
	Spaced bool
	// NoSameBytes: every changed file is copied, even one whose bytes are
	// the stored ones (samebytes.go). A Mirror disk's: its write-back
	// tells a new hard link to a file by the file's new copy.
	NoSameBytes bool
}
