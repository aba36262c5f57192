package main

import (
	"context"
	"time"

	"rambar/bench"
	"rambar/keeper"
	"rambar/ramdisk"
)

// The JSON documents' parts that are not disks (docs/json.md describes
// each): keys are snake_case, durations are float seconds named _seconds,
// and a value that is not known is null, never "".

// resultJSON is a save or a restore (save's "saved" entries, restore).
type resultJSON struct {
	Snapshot    string  `json:"snapshot"`
	Unchanged   bool    `json:"unchanged"`
	Files       int     `json:"files"`
	Bytes       int64   `json:"bytes"`
	CopiedFiles int     `json:"copied_files"`
	CopiedBytes int64   `json:"copied_bytes"`
	Removed     int     `json:"removed"`
	Took        float64 `json:"took_seconds"`
	// NotKept names what the save could not keep (sockets, device nodes).
	NotKept []keeper.NotKept `json:"not_kept,omitempty"`
	// Folder is a Mirror write-back: conflicts, outside changes kept.
	Folder *keeper.WriteBack `json:"folder,omitempty"`
	// InUse: the snapshot was taken while the disk was in use (it never
	// held still during the save).
	InUse *keeper.InUse `json:"in_use,omitempty"`
	// Safety: the safety snapshot a forced restore saved of what the disk
	// held unsaved, or a Mirror load marked (keeper.SafetyNote).
	Safety *keeper.SafetyNote `json:"safety,omitempty"`
}

func toResultJSON(r keeper.Result) resultJSON {
	return resultJSON{Snapshot: r.Snapshot, Unchanged: r.Unchanged, Files: r.Files, Bytes: r.Bytes,
		CopiedFiles: r.CopiedFiles, CopiedBytes: r.CopiedBytes, Removed: r.Removed, Took: r.Took.Seconds(),
		NotKept: r.NotKept, Folder: r.Folder, InUse: r.InUse, Safety: r.Safety}
}

// usageJSON is a disk's use at one moment (reclaim's before and after).
type usageJSON struct {
	Used       ramdisk.Size  `json:"used_bytes"`
	Free       ramdisk.Size  `json:"free_bytes"`
	Held       *ramdisk.Size `json:"held_bytes"` // null when it could not be measured
	MeasuredAt time.Time     `json:"measured_at"`
}

func toUsageJSON(u ramdisk.Usage) usageJSON {
	j := usageJSON{Used: u.Used, Free: u.Free, MeasuredAt: u.At.UTC()}
	if u.HeldKnown {
		h := u.Held
		j.Held = &h
	}
	return j
}

// reclaimJSON is `reclaim --json`.
type reclaimJSON struct {
	Version int       `json:"version"`
	Disk    diskJSON  `json:"disk"`
	Files   int       `json:"files"`
	Bytes   int64     `json:"bytes"`
	Before  usageJSON `json:"before"`
	After   usageJSON `json:"after"`
	Took    float64   `json:"took_seconds"`
}

func toReclaimJSON(r keeper.ReclaimResult) reclaimJSON {
	return reclaimJSON{Version: jsonVersion, Disk: toDiskJSON(disk{Volume: r.Volume, Usage: r.After}),
		Files: r.Files, Bytes: r.Bytes, Before: toUsageJSON(r.Before), After: toUsageJSON(r.After), Took: r.Took.Seconds()}
}

// capsJSON is what the engine can do, in `doctor --json`.
type capsJSON struct {
	OS            string               `json:"os"`
	FileSystems   []ramdisk.FileSystem `json:"file_systems"`
	NeedsAdmin    []ramdisk.FileSystem `json:"needs_admin"`
	MountRoot     string               `json:"mount_root"`
	HeldIsCostly  bool                 `json:"held_is_costly"`
	LazyThreshold ramdisk.Size         `json:"lazy_threshold_bytes"` // 0: always taken as written
}

func toCapsJSON(c ramdisk.Caps) capsJSON {
	j := capsJSON{OS: c.OS, FileSystems: c.FileSystems, NeedsAdmin: c.NeedsAdmin, MountRoot: c.MountRoot,
		HeldIsCostly: c.HeldIsCostly, LazyThreshold: c.LazyThreshold}
	if j.FileSystems == nil {
		j.FileSystems = []ramdisk.FileSystem{}
	}
	if j.NeedsAdmin == nil {
		j.NeedsAdmin = []ramdisk.FileSystem{}
	}
	return j
}

// measuredDiskJSON is a disk just made, with its figures measured now (an
// empty 2 GiB disk has 2 GiB free, not 0).
func (a *App) measuredDiskJSON(ctx context.Context, v ramdisk.Volume) diskJSON {
	d := disk{Volume: v}
	if e, err := a.Engine(); err == nil {
		d.Usage, d.UsageErr = e.Usage(ctx, v)
	}
	return toDiskJSON(d)
}

// optString is s, or null when it is empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// secondsJSON is a trial's timings in one place, in seconds.
type secondsJSON struct {
	Median  float64   `json:"median_seconds"`
	Min     float64   `json:"min_seconds"`
	Max     float64   `json:"max_seconds"`
	Samples []float64 `json:"samples_seconds"`
}

func toSecondsJSON(r bench.Result) secondsJSON {
	return secondsJSON{Median: r.Median, Min: r.Min, Max: r.Max, Samples: r.Samples}
}

// tryJSON is `try --json`.
type tryJSON struct {
	Version   int              `json:"version"`
	Argv      []string         `json:"argv"`
	Src       string           `json:"src"`
	Copy      string           `json:"copy"`
	CopyBytes int64            `json:"copy_bytes"`
	CopyFiles int              `json:"copy_files"`
	CopySecs  float64          `json:"copy_seconds"`
	RAM       secondsJSON      `json:"ram"`
	Disk      secondsJSON      `json:"disk"`
	Runs      []bench.TrialRun `json:"runs"`
	Speedup   float64          `json:"speedup"`
	Verdict   bench.Verdict    `json:"verdict"`
	Summary   string           `json:"summary"`
	Log       string           `json:"log,omitempty"` // with --keep-log
}

func toTryJSON(r bench.TrialResult, log string) tryJSON {
	return tryJSON{Version: jsonVersion, Argv: r.Argv, Src: r.Src, Copy: r.Copy, CopyBytes: r.CopyBytes,
		CopyFiles: r.CopyFiles, CopySecs: r.CopySecs, RAM: toSecondsJSON(r.RAM), Disk: toSecondsJSON(r.Disk),
		Runs: r.Runs, Speedup: r.Speedup, Verdict: r.Verdict, Summary: r.Summary(), Log: log}
}
