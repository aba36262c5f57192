package keeper

import (
	"fmt"
	"path/filepath"
	"time"

	"rambar/i18n"
	"rambar/internal/record"
	"rambar/ramdisk"
)

// ErrIncomplete: a disk whose restore or load did not finish, so it holds
// only part of its saved state (a Mirror disk: of its folder); saving or
// writing it back would replace the whole saved copy with a part. It is an
// ErrRefused; the one error for both (a Mirror disk's sync record, a kept
// disk's fill record below).
var ErrIncomplete = i18n.Errorf("%w: restore incomplete", ErrRefused)

// A disk being filled (a create loading a kept or Mirror disk, a restore)
// has a fill record in DATA/restoring/KEY.json (the step journal of the
// fill, internal/record) from before the first byte is written until the
// fill has finished: a disk mounted at the recorded mount point while the
// record exists is incomplete. A RAMBar stopped in the middle (kill -9, a
// crash, a power cut) leaves it, and save, eject and autosave refuse to
// replace the saved copy with the disk.

// fillRecord is what is kept about a fill while it runs.
type fillRecord struct {
	Name       string    `json:"name"`
	MountPoint string    `json:"mount_point"`
	PID        int       `json:"pid"`
	Started    time.Time `json:"started"`
}

// fills is the journal of fills.
func (k *Keeper) fills() record.Log[fillRecord] {
	return record.Log[fillRecord]{Kind: k.kind("restoring"), Op: "restore",
		Key:  func(r *fillRecord) string { return r.Name },
		Step: func(*fillRecord) string { return "restoring" }}
}

// kind is the record kind the Keeper keeps per disk in the data folder's
// folder dir, keyed by the one name rule (record.Platform); without a data
// folder it keeps nothing.
func (k *Keeper) kind(dir string) record.Kind {
	kind := record.Kind{Names: record.Platform}
	if k.Data != "" {
		kind.Dir = filepath.Join(k.Data, dir)
	}
	return kind
}

// BeginFill records that disk name at mountPoint is about to be filled.
func (k *Keeper) BeginFill(name, mountPoint string) error {
	if err := k.fills().Note(fillRecord{Name: name, MountPoint: mountPoint, PID: record.Self().PID, Started: time.Now().UTC()}); err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	return nil
}

// Filled removes the fill record: the fill finished (or the partial disk
// is gone and its saved copy was kept).
func (k *Keeper) Filled(name string) { k.fills().Done(name) }

// Filling reports whether disk name has a fill record.
func (k *Keeper) Filling(name string) bool {
	_, found, _ := k.fills().Get(name)
	return found
}

// Incomplete reports whether v holds only part of its saved state: its
// fill began and never finished. A damaged record counts.
func (k *Keeper) Incomplete(v ramdisk.Volume) bool {
	r, found, ok := k.fills().Get(v.Name)
	return found && (!ok || r.MountPoint == "" || r.MountPoint == v.MountPoint)
}

// PendingFills lists the fills a stopped RAMBar left (Leftovers).
func (k *Keeper) PendingFills() []record.Pending { return k.fills().Pending(nil) }
