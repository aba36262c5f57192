package diskid

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"rambar/internal/record"
	"time"
)

// Record is what a data folder keeps about one disk it made (or took on:
// a kept disk made by an older RAMBar, a reclaimed disk made again).
type Record struct {
	Name string `json:"name"`
	// Volume is the disk's canonical identity (For: the engine's, else Of);
	// Local is Of(MountPoint) when it was made.
	Volume     string `json:"volume"`
	Local      string `json:"local"`
	MountPoint string `json:"mount_point"`
	Kind       string `json:"kind"`
	// ID is the store id of a kept or mirrored disk.
	ID   string    `json:"id,omitempty"`
	Made time.Time `json:"made"`
}

// Matches reports whether the disk mounted at mountPoint, with the engine's
// identity (may be ""), is the one recorded: its identity now is the one
// recorded (and the engine's, when both are known, agrees).
func (r Record) Matches(identity, mountPoint string) bool {
	local, err := Of(mountPoint)
	if err != nil || r.Local == "" || local != r.Local {
		return false
	}
	return identity == "" || r.Volume == "" || identity == r.Volume
}

// Live reports whether the recorded disk is still mounted where it was.
func (r Record) Live() bool { return r.Matches("", r.MountPoint) }

// Registry is a data folder's records of the disks it made: DATA/made/,
// one per name by the one rule of internal/record (exact on Linux, folded
// on macOS). A record an older RAMBar kept under a hash of the exact name
// is still read, and moved at its next write.
type Registry struct{ Dir string }

// NewRegistry is the registry of the data folder data.
func NewRegistry(data string) Registry { return Registry{Dir: filepath.Join(data, "made")} }

// maxRecord bounds a record file.
const maxRecord = 16 << 10

// kind is the registry as a kind of record: written atomically but not
// flushed (a record is of a mounted RAM disk, which a power cut takes
// with it, and the boot's id in its identity makes it stale).
func (g Registry) kind() record.Kind {
	return record.Kind{Dir: g.Dir, Names: record.Platform, Legacy: hashKey, Limit: maxRecord, Fast: true}
}

// hashKey is the key an older RAMBar kept a name's record under.
func hashKey(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:16])
}

// Get returns the record of the disk named name; ok is false when there is
// none (or it is damaged: a damaged record knows nothing).
func (g Registry) Get(name string) (Record, bool) {
	var r Record
	if found, ok := g.kind().Load(name, &r); !found || !ok || r.Name == "" || r.Local == "" || r.MountPoint == "" {
		return Record{}, false
	}
	return r, true
}

// Put records r (replacing the record of its name).
func (g Registry) Put(r Record) error {
	if g.Dir == "" {
		return errors.New("record disk: no data folder")
	}
	if r.Made.IsZero() {
		r.Made = time.Now().UTC()
	}
	if err := g.kind().Write(r.Name, r); err != nil {
		return fmt.Errorf("record disk %s: %w", r.Name, err)
	}
	return nil
}

// Drop removes the record of name, but only while it is the record of the
// disk whose local identity is local ("" drops it whatever it records).
func (g Registry) Drop(name, local string) error {
	if g.Dir == "" {
		return nil
	}
	if local != "" {
		if r, ok := g.Get(name); ok && r.Local != local {
			return nil
		}
	}
	g.kind().Remove(name)
	if _, still := g.Get(name); still {
		return fmt.Errorf("forget disk record %s: it could not be removed", name)
	}
	return nil
}
