package mirror

import (
	"rambar/foldersync"
	"rambar/snapstore"
	"rambar/tree"
	"time"
)

// Result says what a save or restore did.
type Result struct {
	Snapshot    string `json:"snapshot"`          // the snapshot saved or restored
	Unchanged   bool   `json:"unchanged"`         // nothing had changed: no new snapshot
	Files       int    `json:"files"`             // regular files in the tree
	Bytes       int64  `json:"bytes"`             // their total size
	CopiedFiles int    `json:"copied_files"`      // files whose bytes were copied
	CopiedBytes int64  `json:"copied_bytes"`      // bytes copied
	Removed     int    `json:"removed,omitempty"` // paths gone since the previous save
	// NotKept names what a save could not keep (sockets, device nodes)
	// and what a restore could not set (an xattr the system refused).
	NotKept []tree.NotKept `json:"not_kept,omitempty"`
	Took    time.Duration  `json:"took_ns"`
	// Folder is what a Mirror disk's write-back did (conflicts, outside
	// changes kept); nil when there was none.
	Folder *foldersync.WriteBack `json:"folder,omitempty"`
	// Remarked: the disk's RAMBar mark (an extended attribute on its root)
	// was gone or not its own, and was put back; the data folder's record
	// knew the disk.
	Remarked bool `json:"remarked,omitempty"`
	// InUse, when set, says the disk never held still during the save, so
	// the snapshot saved (or restored) was taken while in use; with
	// Unchanged, that nothing could be saved beyond the last snapshot.
	InUse *snapstore.InUse `json:"in_use,omitempty"`
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
// foldersync.ErrFolderMissing).
var ErrFolderMissing = foldersync.ErrFolderMissing
