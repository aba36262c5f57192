package tray

import (
	"rambar/ramdisk"
)

// diskNotes are the submenu's lines of what is known of a disk: in place,
// conflicts, changes kept in its folder, its last save, in use, memory
// pinned, compression, fill, an incomplete restore, its maker, a usage
// error.
func diskNotes(s menuState, d diskState, key string) []Item {
	name, p := d.Volume.Name, s.P
	var sub []Item
	if d.InPlace != "" {
		sub = append(sub, Item{Key: key + "/inplace", Title: p.T("In place at %s", d.InPlace), Disabled: true,
			Tooltip: p.T("The folder's own path runs from this disk; Save Now and Eject write it back there.")})
	}
	if n := d.Conflicts.N; n > 0 {
		sub = append(sub, Item{Key: key + "/conflicts", Title: p.T("⚠ %d conflicts in %s", n, d.Conflicts.Folder),
			Tooltip: p.T("Changed on the disk and in the folder since it was loaded: both versions are kept there. Click to open the folder."),
			action:  action{Kind: actOpenFolder, Disk: name, Text: d.Conflicts.Folder}})
	}
	if n := d.KeptInFolder; n > 0 {
		sub = append(sub, Item{Key: key + "/keptinfolder", Title: p.T("Folder: %d changes kept in the folder, not on the disk", n),
			Tooltip: p.T("Changed in the mirror folder since the disk was loaded or last saved; Take Folder's Changes brings them onto the disk"), Disabled: true})
	}
	if it, ok := savedItem(p, d, key, s.Now); ok {
		sub = append(sub, it)
	} else if d.Unsaved {
		sub = append(sub, Item{Key: key + "/unsaved", Title: p.T("• Unsaved: changed since the last save (Save Now, or autosave, keeps them)"), Disabled: true})
	}
	if d.InUse > 0 {
		sub = append(sub, Item{Key: key + "/inuse", Title: p.T("⚠ Last save taken while in use: %d paths kept changing", d.InUse),
			Tooltip: p.T("The disk never held still while it was saved: each file is a version that existed, but together they may not be one moment's state. "+
				"The next save made while it is idle is consistent; 'rambar snapshots %s' lists which saves were taken in use.", d.Volume.Name),
			Disabled: true})
	}
	if d.Measured && d.UsageErr == nil {
		if pinned := d.Usage.Pinned(); pinned > 0 && d.Volume.FS.IsDiskImage() && d.Volume.Allocation != ramdisk.AllocUpfront {
			sub = append(sub, Item{Key: key + "/pinned", Title: p.T("%s held by deleted files", p.Size(pinned)), Disabled: true})
		}
		if r := d.Usage.CompressionRatio(); r > 0 {
			sub = append(sub, Item{Key: key + "/ratio", Title: p.T("Compressed %.1f×", r), Disabled: true})
		}
		if d.Usage.NearlyFull() {
			sub = append(sub, Item{Key: key + "/full", Title: p.T("⚠ %.0f%% full", 100*d.Usage.Fill()), Disabled: true})
		}
	}
	if d.Incomplete {
		sub = append(sub, Item{Key: key + "/incomplete", Title: p.T("⚠ Restore incomplete: its saved state is kept, not saved over"),
			Tooltip: p.T("RAMBar was stopped while restoring this disk. Eject it and mount it again to restore the whole saved state."), Disabled: true})
	}
	if d.Whose.Text != "" {
		sub = append(sub, Item{Key: key + "/whose", Title: p.T("Not made by this RAMBar: Eject All leaves it alone"),
			Tooltip: d.Volume.Name + " " + Say(p, d.Whose), Disabled: true})
	}
	if d.UsageErr != nil {
		sub = append(sub, Item{Key: key + "/usageerr", Title: p.T("Can't measure: %s", short(p, d.UsageErr)), Tooltip: p.Err(d.UsageErr), Disabled: true})
	}
	return sub
}

// diskActions are what can be done with a disk besides open and eject:
// save, keep or mirror, take its folder's changes, reclaim, benchmark.
func diskActions(s menuState, d diskState, key string, act func(actionKind) action) []Item {
	idle, p := d.Op == opNone, s.P
	var extra []Item
	if s.Features.SaveNow && (d.Kept || d.Op == opSaving) {
		t := p.T("Save Now")
		if d.Op == opSaving {
			t = progressText(p, d)
		} else if d.Unsaved {
			t = p.T("Save Now (unsaved changes)")
		}
		extra = append(extra, Item{Key: key + "/save", Title: t, Disabled: !idle, action: act(actSaveNow)})
	}
	if s.Features.SaveNow && (d.Op == opKeeping || !d.Kept && d.Whose.Text == "" && !d.Incomplete) {
		t := p.T("Keep Contents")
		if d.Op == opKeeping {
			t = progressText(p, d)
		}
		extra = append(extra, Item{Key: key + "/keep", Title: t, Disabled: !idle,
			Tooltip: p.T("Save this disk now and on every eject, and restore it when it is made again"), action: act(actKeep)})
		if s.Features.EditPresets && idle {
			extra = append(extra, Item{Key: key + "/mirrorto", Title: p.T("Mirror to a Folder…"),
				Tooltip: p.T("Write this disk into an empty folder now and on every save and eject"), action: act(actMirrorTo)})
		}
	}
	if s.Features.SaveNow && (d.Op == opRefreshing || d.KeptInFolder > 0 && d.Kept) {
		t := p.T("Take Folder's Changes")
		if d.Op == opRefreshing {
			t = progressText(p, d)
		}
		extra = append(extra, Item{Key: key + "/refresh", Title: t, Disabled: !idle,
			Tooltip: p.T("Bring what changed in the mirror folder onto the disk (saved before and after; what changed on both sides keeps both)"),
			action:  act(actRefresh)})
	}
	if s.Features.Reclaim && (d.Op == opReclaiming || reclaimable(d)) {
		t := p.T("Reclaim %s", p.Size(d.Usage.Pinned()))
		if d.Op == opReclaiming {
			t = progressText(p, d)
		}
		extra = append(extra, Item{Key: key + "/reclaim", Title: t, Tooltip: p.T("Copy the files out, remake the disk and copy them back, freeing memory deleted files still hold"),
			Disabled: !idle, action: act(actReclaim)})
	}
	if s.Features.Benchmark {
		t := p.T("Benchmark This Disk")
		if d.Op == opBenchmarking {
			t = progressText(p, d)
		}
		extra = append(extra, Item{Key: key + "/bench", Title: t, Disabled: !idle, action: act(actBenchmark)})
	}
	return extra
}
