package keeper

import (
	"rambar/foldersync"
	"rambar/mirrorfolder"
	"rambar/snapshot"
	"rambar/snapstore"
)

// Result says what a save or restore did and, for a Mirror disk, what its
// write-back did.
type Result struct {
	snapshot.Result
	// Folder is what a Mirror disk's write-back did (conflicts, outside
	// changes kept); nil when there was none.
	Folder *foldersync.WriteBack `json:"folder,omitempty"`
	// Remarked: the disk's RAMBar mark (an extended attribute on its root)
	// was gone or not its own, and was put back; the data folder's record
	// knew the disk.
	Remarked bool `json:"remarked,omitempty"`
	// Safety is the safety snapshot a forced restore saved of what the
	// disk held, or a Mirror load marked as holding what the folder lacks
	// (restoresafe.go); nil when there was none.
	Safety *SafetyNote `json:"safety,omitempty"`
}

// Snapshot describes one saved state (the store's description, as the
// Keeper lists it).
type Snapshot = snapstore.Snapshot

// InUse says that a save found the disk changing throughout (see
// snapstore.InUse).
type InUse = snapstore.InUse

// ErrNoSnapshot: nothing was saved yet, or no snapshot has that ID.
var ErrNoSnapshot = snapstore.ErrNoSnapshot

// WriteBack is what a Mirror disk's write-back did (see
// foldersync.WriteBack).
type WriteBack = foldersync.WriteBack

// Conflict is one path changed on both sides (see foldersync.Conflict).
type Conflict = foldersync.Conflict

// ErrFolderMissing: a Mirror disk's folder is gone (see
// mirrorfolder.ErrFolderMissing).
var ErrFolderMissing = mirrorfolder.ErrFolderMissing

// ErrNothingWritten: a restore failed before it wrote or removed anything
// on the disk (see snapshot.ErrNothingWritten).
var ErrNothingWritten = snapshot.ErrNothingWritten
