package tray

import (
	"fmt"
	"rambar/ramdisk"
)

// diskNotes are the submenu's lines of what is known of a disk: in place,
// conflicts, changes kept in its folder, its last save, in use, memory
// pinned, compression, fill, an incomplete restore, its maker, a usage
// error.
func diskNotes(s menuState, d diskState, key string) []Item {
	name := d.Volume.Name
	var sub []Item
	if d.InPlace != "" {
		sub = append(sub, Item{Key: key + "/inplace", Title: "In place at " + d.InPlace, Disabled: true,
			Tooltip: "The folder's own path runs from this disk; Save Now and Eject write it back there."})
	}
	if n := d.Conflicts.N; n > 0 {
		sub = append(sub, Item{Key: key + "/conflicts", Title: fmt.Sprintf("⚠ %s in %s", ramdisk.Plural(n, "conflict"), d.Conflicts.Folder),
			Tooltip: "Changed on the disk and in the folder since it was loaded: both versions are kept there. Click to open the folder.",
			action:  action{Kind: actOpenFolder, Disk: name, Text: d.Conflicts.Folder}})
	}
	if n := d.KeptInFolder; n > 0 {
		sub = append(sub, Item{Key: key + "/keptinfolder", Title: fmt.Sprintf("Folder: %s kept in the folder, not on the disk", ramdisk.Plural(n, "change")),
			Tooltip: "Changed in the mirror folder since the disk was loaded or last saved; Take Folder's Changes brings them onto the disk", Disabled: true})
	}
	if it, ok := savedItem(d, key, s.Now); ok {
		sub = append(sub, it)
	} else if d.Unsaved {
		sub = append(sub, Item{Key: key + "/unsaved", Title: "• Unsaved: changed since the last save (Save Now, or autosave, keeps them)", Disabled: true})
	}
	if d.InUse > 0 {
		sub = append(sub, Item{Key: key + "/inuse", Title: fmt.Sprintf("⚠ Last save taken while in use: %s kept changing", ramdisk.Plural(d.InUse, "path")),
			Tooltip: "The disk never held still while it was saved: each file is a version that existed, but together they may not be one moment's state. " +
				"The next save made while it is idle is consistent; 'rambar snapshots " + d.Volume.Name + "' lists which saves were taken in use.",
			Disabled: true})
	}
	if d.Measured && d.UsageErr == nil {
		if p := d.Usage.Pinned(); p > 0 && d.Volume.FS.IsDiskImage() && d.Volume.Allocation != ramdisk.AllocUpfront {
			sub = append(sub, Item{Key: key + "/pinned", Title: p.Short() + " held by deleted files", Disabled: true})
		}
		if r := d.Usage.CompressionRatio(); r > 0 {
			sub = append(sub, Item{Key: key + "/ratio", Title: fmt.Sprintf("Compressed %.1f×", r), Disabled: true})
		}
		if d.Usage.NearlyFull() {
			sub = append(sub, Item{Key: key + "/full", Title: fmt.Sprintf("⚠ %.0f%% full", 100*d.Usage.Fill()), Disabled: true})
		}
	}
	if d.Incomplete {
		sub = append(sub, Item{Key: key + "/incomplete", Title: "⚠ Restore incomplete: its saved state is kept, not saved over",
			Tooltip: "RAMBar was stopped while restoring this disk. Eject it and mount it again to restore the whole saved state.", Disabled: true})
	}
	if d.Whose != "" {
		sub = append(sub, Item{Key: key + "/whose", Title: "Not made by this RAMBar: Eject All leaves it alone",
			Tooltip: d.Volume.Name + " " + d.Whose, Disabled: true})
	}
	if d.UsageErr != nil {
		sub = append(sub, Item{Key: key + "/usageerr", Title: "Can't measure: " + short(d.UsageErr), Tooltip: d.UsageErr.Error(), Disabled: true})
	}
	return sub
}

// diskActions are what can be done with a disk besides open and eject:
// save, keep or mirror, take its folder's changes, reclaim, benchmark.
func diskActions(s menuState, d diskState, key string, act func(actionKind) action) []Item {
	idle := d.Op == opNone
	var extra []Item
	if s.Features.SaveNow && (d.Kept || d.Op == opSaving) {
		t := "Save Now"
		if d.Op == opSaving {
			t = progressText(d)
		} else if d.Unsaved {
			t = "Save Now (unsaved changes)"
		}
		extra = append(extra, Item{Key: key + "/save", Title: t, Disabled: !idle, action: act(actSaveNow)})
	}
	if s.Features.SaveNow && (d.Op == opKeeping || !d.Kept && d.Whose == "" && !d.Incomplete) {
		t := "Keep Contents"
		if d.Op == opKeeping {
			t = progressText(d)
		}
		extra = append(extra, Item{Key: key + "/keep", Title: t, Disabled: !idle,
			Tooltip: "Save this disk now and on every eject, and restore it when it is made again", action: act(actKeep)})
		if s.Features.EditPresets && idle {
			extra = append(extra, Item{Key: key + "/mirrorto", Title: "Mirror to a Folder…",
				Tooltip: "Write this disk into an empty folder now and on every save and eject", action: act(actMirrorTo)})
		}
	}
	if s.Features.SaveNow && (d.Op == opRefreshing || d.KeptInFolder > 0 && d.Kept) {
		t := "Take Folder's Changes"
		if d.Op == opRefreshing {
			t = progressText(d)
		}
		extra = append(extra, Item{Key: key + "/refresh", Title: t, Disabled: !idle,
			Tooltip: "Bring what changed in the mirror folder onto the disk (saved before and after; what changed on both sides keeps both)",
			action:  act(actRefresh)})
	}
	if s.Features.Reclaim && (d.Op == opReclaiming || reclaimable(d)) {
		t := "Reclaim " + d.Usage.Pinned().Short()
		if d.Op == opReclaiming {
			t = progressText(d)
		}
		extra = append(extra, Item{Key: key + "/reclaim", Title: t, Tooltip: "Copy the files out, remake the disk and copy them back, freeing memory deleted files still hold",
			Disabled: !idle, action: act(actReclaim)})
	}
	if s.Features.Benchmark {
		t := "Benchmark This Disk"
		if d.Op == opBenchmarking {
			t = progressText(d)
		}
		extra = append(extra, Item{Key: key + "/bench", Title: t, Disabled: !idle, action: act(actBenchmark)})
	}
	return extra
}
