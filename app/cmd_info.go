package main

import (
	"context"
	"fmt"
	"text/tabwriter"
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
	tw := tabwriter.NewWriter(a.Stdout, 2, 4, 2, ' ', 0)
	row := func(k, f string, args ...any) { fmt.Fprintf(tw, "%s:\t"+f+"\n", append([]any{k}, args...)...) }
	row("Name", "%s", d.Name)
	switch {
	case inPlace == d.MountPoint:
		row("Mount point", "in place at %s (the folder's own path serves the disk; save and eject write it back there)", inPlace)
	case inPlace != "":
		row("Mount point", "%s, in place at %s (the folder's own path serves the disk; save and eject write it back there)", d.MountPoint, inPlace)
	default:
		row("Mount point", "%s", d.MountPoint)
	}
	row("Device", "%s", d.Device)
	row("File system", "%s", d.FS.Label())
	row("Size", "%s", d.Size)
	row("Allocation", "%s", d.Allocation.Phrase())
	if d.HelperPID > 0 {
		row("Helper", "diskimages-helper pid %d", d.HelperPID)
	}
	if d.UsageErr != nil {
		row("Usage", "unknown: %v", d.UsageErr)
	} else {
		u := d.Usage
		row("Used", "%s (%.0f%%), %s free", u.Used.Short(), 100*u.Fill(), u.Free.Short())
		if u.HeldKnown {
			row("Memory held", "%s", u.Held.Short())
			if p := u.Pinned(); p > 0 {
				row("Pinned by deleted files", "%s", p.Short())
			}
			if r := u.CompressionRatio(); r > 0 {
				row("Compression", "%.1fx (%s stored in %s)", r, u.Stored.Short(), u.Held.Short())
			}
		} else {
			row("Memory held", "unknown")
		}
		if u.NearlyFull() {
			row("Warning", "over 90%% full")
		}
		if u.ReclaimWorthwhile() {
			row("Tip", "rambar reclaim %s would give back about %s", d.Name, u.Pinned().Short())
		}
	}
	if sv, ok := a.files().NotKept(v); ok {
		row("Contents", "%s", savedHint(sv, false))
	} else {
		contentsRows(row, d.Name, contents)
	}
	a.extrasRows(ctx, row, v)
	for _, l := range a.files().StoppedReclaims() {
		if l.Name == d.Name {
			row("Reclaim", "stopped; its contents are safe in %s; rambar reclaim %s --resume finishes or undoes it", l.Path, quoteName(l.Name))
		}
	}
	for _, n := range d.Notes {
		row("Note", "%s", n)
	}
	return tw.Flush()
}

// contentsRows adds how the contents are kept to `info`.
func contentsRows(row func(k, f string, args ...any), name string, c *contentsJSON) {
	if c == nil {
		row("Contents", "discarded on eject ('rambar keep %s' keeps them from now on)", quoteName(name))
		return
	}
	switch c.Mode {
	case "keep":
		row("Contents", "kept (saved on eject, restored at create)")
	case "mirror":
		row("Contents", "mirror of %s", c.MirrorPath)
	}
	row("Backing folder", "%s", c.Backing)
	if c.LastSave != nil && c.LastSnapshot != nil {
		row("Last save", "%s (%s), %s", snapshotTime(*c.LastSave, time.Local), *c.LastSnapshot, ramdisk.Ago(time.Since(*c.LastSave)))
	} else {
		row("Last save", "never")
	}
	n := quoteName(name)
	switch {
	case c.RestoreIncomplete:
		row("Restore", "incomplete: it holds only part of its saved state, which is kept and not saved over; "+
			"finish with 'rambar restore %s --force', or drop it with 'rambar eject %s --force'", n, n)
	case c.Unsaved == nil:
		row("Unsaved changes", "unknown")
	case c.UnsavedPaths != nil && *c.UnsavedPaths > 0:
		row("Unsaved changes", "%s changed (the menu-bar app's change feed counts them)", ramdisk.Plural(*c.UnsavedPaths, "path"))
	case *c.Unsaved:
		row("Unsaved changes", "yes")
	default:
		row("Unsaved changes", "no")
	}
	if c.Feed != nil {
		row("Change feed", "%s", feedPhrase(c.Feed.Status))
	}
	switch {
	case c.KeptInFolder == nil:
	case *c.KeptInFolder == 0:
		row("Folder", "no changes kept in the folder that the disk lacks")
	default:
		row("Folder", "%s kept in the folder, not on the disk ('rambar refresh %s' takes them)", ramdisk.Plural(*c.KeptInFolder, "change"), n)
	}
	switch {
	case c.SaveEvery > 0 && c.RestoreIncomplete:
		row("Autosave", "every %s, paused: nothing is saved over its saved state until its restore is finished", ramdisk.ShortDuration(time.Duration(c.SaveEvery*float64(time.Second))))
	case c.SaveEvery > 0:
		row("Autosave", "%s", autosavePhrase(time.Duration(c.SaveEvery*float64(time.Second)), c.AutosaveActive))
	case c.SaveContinuously && c.RestoreIncomplete:
		row("Autosave", "continuously, paused: nothing is saved over its saved state until its restore is finished")
	case c.SaveContinuously:
		row("Autosave", "%s", continuousPhrase(c.AutosaveActive))
	}
	if c.Error != "" {
		row("Contents error", "%s", c.Error)
	}
}

// continuousPhrase says that a disk is saved as it changes, and whether
// that happens now.
func continuousPhrase(running bool) string {
	s := fmt.Sprintf("continuously, about %s after the changes stop and every %s under steady writing, while the menu-bar app runs",
		ramdisk.ShortDuration(keeper.ContinuousQuiet), ramdisk.ShortDuration(keeper.ContinuousBusy))
	if running {
		return s + " (it is running)"
	}
	return s + "; it is not running now, so nothing is saved until it starts"
}

// autosavePhrase says how often a disk is saved and whether that happens
// now: only the menu-bar app autosaves.
func autosavePhrase(every time.Duration, running bool) string {
	s := "every " + ramdisk.ShortDuration(every) + " while the menu-bar app runs"
	if running {
		return s + " (it is running)"
	}
	return s + "; it is not running now, so nothing is saved until it starts"
}
