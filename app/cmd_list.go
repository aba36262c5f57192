package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rambar/disks"
	"rambar/i18n"
	"rambar/ramdisk"
	"rambar/tray"
)

func init() {
	register(&command{Name: "list", Summary: i18n.N("list mounted RAM disks with the memory each really holds"),
		Doc:  i18n.N("It also says what the machine has free and in swap, and which disks are nearly full or worth a reclaim."),
		JSON: true, Example: "list\nlist --json", Order: 20, Run: runList})
}

// detachedJSON is a disk ejected while busy whose memory is still held,
// in `list --json`.
type detachedJSON struct {
	Name       string             `json:"name"`
	MountPoint string             `json:"mount_point"`
	FS         ramdisk.FileSystem `json:"fs"`
	Held       ramdisk.Size       `json:"held_bytes"`
	Holders    []ramdisk.Holder   `json:"holders"`
	Ejected    time.Time          `json:"ejected_at"`
}

func runList(ctx context.Context, a *App, in *input) error {
	asJSON := in.Bool("json")
	ds, err := a.disks(ctx)
	if err != nil {
		return err
	}
	var detached []disks.Detached
	if svc, err := a.service(); err == nil {
		detached = svc.DetachedDisks(ctx)
	}
	e, _ := a.Engine()
	mem, memErr := e.Memory(ctx)
	if *asJSON {
		return a.listJSON(ctx, ds, detached, mem, memErr)
	}
	defer a.printStoppedReclaims()
	// Other users' disks are theirs: one line says how many, and whose.
	var others []string
	mine := ds[:0:0]
	for _, d := range ds {
		if u := ramdisk.OtherUser(a.files().Whose(d.Volume)); u != "" {
			others = append(others, u)
			continue
		}
		mine = append(mine, d)
	}
	defer printOthers(a, others)
	ds = mine
	if len(ds) == 0 && len(detached) == 0 {
		fmt.Fprintln(a.Stdout, a.say().T("No RAM disks of yours mounted. Make one with: rambar create Scratch 4G"))
		return nil
	}
	say := a.say()
	tw := newColumns(a.Stdout)
	fmt.Fprintln(tw, say.T("NAME\tMOUNT POINT\tFS\tSIZE\tUSED\tHELD\tALLOCATION\tCONTENTS"))
	var held ramdisk.Size
	for _, d := range ds {
		used, heldS := "?", "?"
		if d.UsageErr == nil {
			used = say.Size(d.Usage.Used)
			if d.Usage.HeldKnown {
				heldS = say.Size(d.Usage.Held)
			}
		}
		held += d.Held()
		mp := d.MountPoint
		if f := a.inPlaceAt(ctx, d.Volume); f != "" && f != mp {
			mp = say.T("%s, in place at %s", mp, f)
		} else if f != "" {
			mp = say.T("in place at %s", f)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, mp, d.FS.Label(), say.Size(d.Size), used, heldS, say.allocation(d.Allocation), say.Text(a.contentsWord(d.Volume)))
	}
	for _, d := range detached {
		// Out of the file tree and no longer mounted, but not out of memory.
		fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t%s\t%s\t-\n", d.Name, say.T("(ejected)"), d.FS.Label(), say.Size(d.Held), say.said(d.Status()))
		held += d.Held
	}
	tw.Flush()
	if memErr == nil && mem.Physical > 0 {
		growTo := ramdisk.GrowTo(volumesOf(ds), held-detachedHeld(detached)) + detachedHeld(detached)
		if say.english() {
			fmt.Fprintf(a.Stdout, "\n%s\n%s\n", ramdisk.MemoryLine(held, mem), capitalize(ramdisk.GrowLine(growTo, mem)))
		} else { // the menu's words for them
			fmt.Fprintf(a.Stdout, "\n%s\n%s\n", tray.MemoryLine(say.p, held, mem, nil), tray.GrowLine(say.p, growTo, mem))
		}
		if mem.Swapping() && held > 0 {
			fmt.Fprintln(a.Stdout, say.T("warning: the machine is swapping (%s) while RAM disks hold %s: their memory may be on the SSD anyway",
				say.Size(mem.SwapUsed), say.Size(held)))
		}
	}
	for _, d := range ds {
		if d.UsageErr == nil && d.Usage.NearlyFull() {
			fmt.Fprintln(a.Stdout, say.T("warning: %s is %.0f%% full", d.Name, 100*d.Usage.Fill()))
		}
		if a.files().Incomplete(d.Volume) {
			fmt.Fprintln(a.Stdout, say.T("warning: %s: restore incomplete; its saved state is kept and not saved over (rambar restore %s --force finishes it)",
				d.Name, quoteName(d.Name)))
		} else if whose := a.files().Whose(d.Volume); whose.Text != "" {
			fmt.Fprintln(a.Stdout, say.T("note: %s %s; eject --all and the menu's Eject All leave it alone", d.Name, say.said(whose)))
		}
		if d.UsageErr == nil && d.Usage.ReclaimWorthwhile() {
			fmt.Fprintln(a.Stdout, say.T("tip: deleted files on %s still pin %s; rambar reclaim %s gives it back", d.Name, say.Size(d.Usage.Pinned()), d.Name))
		}
	}
	return nil
}

// contentsWord is list's CONTENTS column: kept, mirrored, discarded (the
// contents die with the disk), or - for a disk another RAMBar made.
func (a *App) contentsWord(v ramdisk.Volume) string {
	k, err := a.keeper()
	if err != nil {
		return "-"
	}
	st, err := k.State(v.Name)
	switch {
	case err == nil && k.Holds(v, st):
	case a.files().Whose(v).Text != "":
		return "-" // not this RAMBar's to say
	default:
		return i18n.N("discarded")
	}
	if st.Mode == ramdisk.Mirror {
		return i18n.N("mirrored")
	}
	return i18n.N("kept")
}

// printOthers says how many of the mounted disks are other users'.
func printOthers(a *App, users []string) {
	if len(users) == 0 {
		return
	}
	seen := map[string]bool{}
	var names []string
	for _, u := range users {
		if !seen[u] {
			seen[u] = true
			names = append(names, u)
		}
	}
	fmt.Fprintln(a.Stdout, a.say().T("Not listed: %d RAM disks of other users (%s), theirs to open, save and eject",
		len(users), strings.Join(names, ", ")))
}

// listJSON is list --json.
func (a *App) listJSON(ctx context.Context, ds []disks.Disk, detached []disks.Detached, mem ramdisk.Memory, memErr error) error {
	out := struct {
		Version int             `json:"version"`
		Disks   []diskJSON      `json:"disks"`
		Ejected []detachedJSON  `json:"ejected_but_held,omitempty"`
		Memory  *ramdisk.Memory `json:"memory"`
		Held    ramdisk.Size    `json:"held_bytes"`
		GrowTo  ramdisk.Size    `json:"grow_to_bytes"`
	}{Version: jsonVersion, Disks: []diskJSON{}}
	for _, d := range ds {
		dj := toDiskJSON(d)
		dj.RestoreIncomplete = a.files().Incomplete(d.Volume)
		dj.InPlace = a.inPlaceAt(ctx, d.Volume)
		out.Disks = append(out.Disks, dj)
		out.Held += d.Held()
	}
	for _, d := range detached {
		out.Ejected = append(out.Ejected, detachedJSON{Name: d.Name, MountPoint: d.MountPoint, FS: d.FS, Held: d.Held, Holders: d.Holders, Ejected: d.Ejected})
		out.Held += d.Held
	}
	if memErr == nil {
		out.Memory = &mem
	}
	out.GrowTo = ramdisk.GrowTo(volumesOf(ds), out.Held-detachedHeld(detached)) + detachedHeld(detached)
	return writeJSON(a.Stdout, out)
}

// detachedHeld is what disks ejected while held still hold: it adds to
// what the mounted ones could grow to.
func detachedHeld(ds []disks.Detached) ramdisk.Size {
	var n ramdisk.Size
	for _, d := range ds {
		n += d.Held
	}
	return n
}

func volumesOf(ds []disk) []ramdisk.Volume {
	vs := make([]ramdisk.Volume, len(ds))
	for i, d := range ds {
		vs[i] = d.Volume
	}
	return vs
}

// printStoppedReclaims announces reclaims that were stopped: their staging
// copies hold a disk's contents until resumed.
func (a *App) printStoppedReclaims() {
	for _, l := range a.files().StoppedReclaims() {
		fmt.Fprintln(a.Stdout, a.say().T("warning: a reclaim of %s was stopped; its contents are safe in %s; rambar reclaim %s --resume finishes or undoes it",
			l.Name, l.Path, quoteName(l.Name)))
	}
}

// quoteName quotes a disk name for a command line when it needs it.
func quoteName(name string) string {
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return strconv.Quote(name)
		}
	}
	return name
}
