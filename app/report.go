package main

import (
	"encoding/json"
	"io"
	"time"

	"rambar/ramdisk"
)

// jsonVersion is the version of every `--json` document. It changes only
// when a field is removed or changes meaning; new fields may be added.
const jsonVersion = 1

// diskJSON is one disk in `list --json` and `info --json` (schema in README).
type diskJSON struct {
	Name       string             `json:"name"`
	MountPoint string             `json:"mount_point"`
	Device     string             `json:"device"`
	FS         ramdisk.FileSystem `json:"fs"`
	Size       ramdisk.Size       `json:"size_bytes"`
	Used       ramdisk.Size       `json:"used_bytes"`
	Free       ramdisk.Size       `json:"free_bytes"`
	Held       *ramdisk.Size      `json:"held_bytes"` // null when unknown
	Pinned     ramdisk.Size       `json:"pinned_bytes"`
	Stored     ramdisk.Size       `json:"stored_bytes,omitempty"`
	Ratio      float64            `json:"compression_ratio,omitempty"`
	Allocation ramdisk.Allocation `json:"allocation"`
	Hidden     bool               `json:"hidden"`
	Managed    bool               `json:"managed"`
	HelperPID  int                `json:"helper_pid,omitempty"`
	Reclaim    bool               `json:"reclaim_worthwhile"`
	NearlyFull bool               `json:"nearly_full"`
	Notes      []string           `json:"notes,omitempty"`
	Error      string             `json:"error,omitempty"`
	MeasuredAt *time.Time         `json:"measured_at,omitempty"`
	// RestoreIncomplete is set when the disk's restore did not finish (list).
	RestoreIncomplete bool `json:"restore_incomplete,omitempty"`
	// InPlace is the folder a Mirror disk is mounted over (create
	// --in-place): its own path serves the disk. Absent otherwise.
	InPlace string `json:"in_place,omitempty"`
	// Contents is how the disk's contents are kept (keep, mirror); absent
	// when they die with the disk.
	Contents *contentsJSON `json:"contents,omitempty"`
}

func toDiskJSON(d disk) diskJSON {
	j := diskJSON{
		Name: d.Name, MountPoint: d.MountPoint, Device: d.Device, FS: d.FS, Size: d.Size,
		Allocation: d.Allocation, Hidden: d.Hidden, Managed: d.Managed, HelperPID: d.HelperPID, Notes: ramdisk.Texts(d.Notes),
	}
	if d.UsageErr != nil {
		j.Error = d.UsageErr.Error()
		return j
	}
	u := d.Usage
	if u.At.IsZero() {
		return j
	}
	j.Used, j.Free, j.Stored = u.Used, u.Free, u.Stored
	if u.HeldKnown {
		h := u.Held
		j.Held = &h
		j.Pinned = u.Pinned()
		j.Ratio = u.CompressionRatio()
		j.Reclaim = u.ReclaimWorthwhile()
	}
	j.NearlyFull = u.NearlyFull()
	at := u.At.UTC()
	j.MeasuredAt = &at
	return j
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
