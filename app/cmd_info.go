package main

import (
	"context"
	"fmt"
	"time"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "info", Summary: i18n.N("show one RAM disk in detail"),
		Doc:  i18n.N("Its size, use, the memory it holds, and how its contents are kept."),
		Args: []arg{{Name: "NAME", Doc: i18n.N("a mounted RAM disk, or its mount point")}},
		JSON: true, Example: "info Scratch\ninfo Work --json", Order: 21, Run: runInfo})
}

func runInfo(ctx context.Context, a *App, in *input) error {
	asJSON, pos := in.Bool("json"), in.Args
	v, err := a.findDisk(ctx, pos[0])
	if err != nil {
		return err
	}
	e, _ := a.Engine()
	d := disk{Volume: v}
	d.Usage, d.UsageErr = e.Usage(ctx, v)
	contents := a.contentsOf(v, true)
	inPlace := a.inPlaceAt(ctx, v)
	if *asJSON {
		dj := toDiskJSON(d)
		dj.Contents, dj.InPlace = contents, inPlace
		return writeJSON(a.Stdout, struct {
			Version int `json:"version"`
			diskJSON
		}{jsonVersion, dj})
	}
	// Each row's label and text are messages of the catalog, said in the
	// user's language (the catalog's test finds the literals given to field).
	say, tw := a.say(), newColumns(a.Stdout)
	field := func(k, f string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", say.Text(k), say.T(f, args...)) }
	field("Name", "%s", d.Name)
	switch {
	case inPlace == d.MountPoint:
		field("Mount point", "in place at %s (the folder's own path serves the disk; save and eject write it back there)", inPlace)
	case inPlace != "":
		field("Mount point", "%s, in place at %s (the folder's own path serves the disk; save and eject write it back there)", d.MountPoint, inPlace)
	default:
		field("Mount point", "%s", d.MountPoint)
	}
	field("Device", "%s", d.Device)
	field("File system", "%s", d.FS.Label())
	field("Size", "%s", say.Number(d.Size.String()))
	field("Allocation", "%s", say.allocation(d.Allocation))
	if d.HelperPID > 0 {
		field("Helper", "diskimages-helper pid %d", d.HelperPID)
	}
	if d.UsageErr != nil {
		field("Usage", "unknown: %v", d.UsageErr)
	} else {
		u := d.Usage
		field("Used", "%s (%.0f%%), %s free", say.Size(u.Used), 100*u.Fill(), say.Size(u.Free))
		if u.HeldKnown {
			field("Memory held", "%s", say.Size(u.Held))
			if p := u.Pinned(); p > 0 {
				field("Pinned by deleted files", "%s", say.Size(p))
			}
			if r := u.CompressionRatio(); r > 0 {
				field("Compression", "%.1fx (%s stored in %s)", r, say.Size(u.Stored), say.Size(u.Held))
			}
		} else {
			field("Memory held", "unknown")
		}
		if u.NearlyFull() {
			field("Warning", "over 90%% full")
		}
		if u.ReclaimWorthwhile() {
			field("Tip", "rambar reclaim %s would give back about %s", d.Name, say.Size(u.Pinned()))
		}
	}
	if sv, ok := a.files().NotKept(v); ok {
		field("Contents", "%s", savedHint(sv, false))
	} else {
		contentsRows(say, field, d.Name, contents)
	}
	a.extrasRows(ctx, field, v)
	for _, l := range a.files().StoppedReclaims() {
		if l.Name == d.Name {
			field("Reclaim", "stopped; its contents are safe in %s; rambar reclaim %s --resume finishes or undoes it", l.Path, quoteName(l.Name))
		}
	}
	for _, n := range d.Notes {
		field("Note", "%s", say.said(n))
	}
	return tw.Flush()
}

// contentsRows adds how the contents are kept to `info`.
func contentsRows(say speech, field func(k, f string, args ...any), name string, c *contentsJSON) {
	if c == nil {
		field("Contents", "discarded on eject ('rambar keep %s' keeps them from now on)", quoteName(name))
		return
	}
	switch c.Mode {
	case "keep":
		field("Contents", "kept (saved on eject, restored at create)")
	case "mirror":
		field("Contents", "mirror of %s", c.MirrorPath)
	}
	field("Backing folder", "%s", c.Backing)
	if c.LastSave != nil && c.LastSnapshot != nil {
		field("Last save", "%s (%s), %s", snapshotTime(*c.LastSave, time.Local), *c.LastSnapshot, say.ago(time.Since(*c.LastSave)))
	} else {
		field("Last save", "never")
	}
	n := quoteName(name)
	switch {
	case c.RestoreIncomplete:
		field("Restore", "incomplete: it holds only part of its saved state, which is kept and not saved over; "+
			"finish with 'rambar restore %s --force', or drop it with 'rambar eject %s --force'", n, n)
	case c.Unsaved == nil:
		field("Unsaved changes", "unknown")
	case c.UnsavedPaths != nil && *c.UnsavedPaths > 0:
		field("Unsaved changes", "%d paths changed (the menu-bar app's change feed counts them)", *c.UnsavedPaths)
	case *c.Unsaved:
		field("Unsaved changes", "yes")
	default:
		field("Unsaved changes", "no")
	}
	if c.Feed != nil {
		field("Change feed", "%s", feedPhrase(say, c.Feed.Status))
	}
	switch {
	case c.KeptInFolder == nil:
	case *c.KeptInFolder == 0:
		field("Folder", "no changes kept in the folder that the disk lacks")
	default:
		field("Folder", "%d changes kept in the folder, not on the disk ('rambar refresh %s' takes them)", *c.KeptInFolder, n)
	}
	switch {
	case c.SaveEvery > 0 && c.RestoreIncomplete:
		field("Autosave", "every %s, paused: nothing is saved over its saved state until its restore is finished",
			say.Number(ramdisk.ShortDuration(time.Duration(c.SaveEvery*float64(time.Second)))))
	case c.SaveEvery > 0:
		field("Autosave", "%s", autosavePhrase(say, time.Duration(c.SaveEvery*float64(time.Second)), c.AutosaveActive))
	case c.SaveContinuously && c.RestoreIncomplete:
		field("Autosave", "continuously, paused: nothing is saved over its saved state until its restore is finished")
	case c.SaveContinuously:
		field("Autosave", "%s", continuousPhrase(say, c.AutosaveActive))
	}
	if c.Error != "" {
		field("Contents error", "%s", c.Error)
	}
}

// continuousPhrase says that a disk is saved as it changes, and whether
// that happens now.
func continuousPhrase(say speech, running bool) string {
	quiet, busy := say.Number(ramdisk.ShortDuration(keeper.ContinuousQuiet)), say.Number(ramdisk.ShortDuration(keeper.ContinuousBusy))
	if running {
		return say.T("continuously, about %s after the changes stop and every %s under steady writing, "+
			"while the menu-bar app runs (it is running)", quiet, busy)
	}
	return say.T("continuously, about %s after the changes stop and every %s under steady writing, "+
		"while the menu-bar app runs; it is not running now, so nothing is saved until it starts", quiet, busy)
}

// autosavePhrase says how often a disk is saved and whether that happens
// now: only the menu-bar app autosaves.
func autosavePhrase(say speech, every time.Duration, running bool) string {
	e := say.Number(ramdisk.ShortDuration(every))
	if running {
		return say.T("every %s while the menu-bar app runs (it is running)", e)
	}
	return say.T("every %s while the menu-bar app runs; it is not running now, so nothing is saved until it starts", e)
}
