package snapshot

import (
	"time"

	"rambar/snapstore"
	"rambar/tree"
)

// Result says what a save or restore of a disk did.
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
	// InUse, when set, says the disk never held still during the save, so
	// the snapshot saved (or restored) was taken while in use; with
	// Unchanged, that nothing could be saved beyond the last snapshot.
	InUse *snapstore.InUse `json:"in_use,omitempty"`
	// ByFeed: the save read only the folders the disk's change feed named
	// (Save by its feed), not the whole disk.
	ByFeed bool `json:"by_feed,omitempty"`
	// AsOf: every change made to the disk before it is in the snapshot
	// (the scan or steady take it holds began then; zero for a restore).
	AsOf time.Time `json:"-"`
}
