package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"

	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "list", Args: "[--json]", Summary: "list mounted RAM disks with the memory each really holds", Order: 20, Run: runList})
}

func runList(ctx context.Context, a *App, args []string) error {
	fl := flag.NewFlagSet("list", flag.ContinueOnError)
	asJSON := fl.Bool("json", false, "print JSON")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return err
	}
	if err := wantArgs("list", pos, 0, 0); err != nil {
		return err
	}
	ds, err := a.disks(ctx)
	if err != nil {
		return err
	}
	e, _ := a.Engine()
	mem, memErr := e.Memory(ctx)
	if *asJSON {
		out := struct {
			Version int             `json:"version"`
			Disks   []diskJSON      `json:"disks"`
			Memory  *ramdisk.Memory `json:"memory"`
			Held    ramdisk.Size    `json:"held_bytes"`
		}{Version: jsonVersion, Disks: []diskJSON{}}
		for _, d := range ds {
			out.Disks = append(out.Disks, toDiskJSON(d))
			out.Held += d.Held()
		}
		if memErr == nil {
			out.Memory = &mem
		}
		return writeJSON(a.Stdout, out)
	}
	if len(ds) == 0 {
		fmt.Fprintln(a.Stdout, "No RAM disks mounted. Make one with: rambar create Scratch 4G")
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tMOUNT POINT\tFS\tSIZE\tUSED\tHELD\tALLOCATION")
	var held ramdisk.Size
	for _, d := range ds {
		used, heldS := "?", "?"
		if d.UsageErr == nil {
			used = d.Usage.Used.Short()
			if d.Usage.HeldKnown {
				heldS = d.Usage.Held.Short()
			}
		}
		held += d.Held()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Name, d.MountPoint, d.FS.Label(), d.Size.Short(), used, heldS, d.Allocation.Phrase())
	}
	tw.Flush()
	if memErr == nil && mem.Physical > 0 {
		fmt.Fprintf(a.Stdout, "\n%s\n", ramdisk.MemoryLine(held, mem))
		if mem.Swapping() && held > 0 {
			fmt.Fprintf(a.Stdout, "warning: the machine is swapping (%s) while RAM disks hold %s: their memory may be on the SSD anyway\n", mem.SwapUsed.Short(), held.Short())
		}
	}
	for _, d := range ds {
		if d.UsageErr == nil && d.Usage.NearlyFull() {
			fmt.Fprintf(a.Stdout, "warning: %s is %.0f%% full\n", d.Name, 100*d.Usage.Fill())
		}
		if d.UsageErr == nil && d.Usage.ReclaimWorthwhile() {
			fmt.Fprintf(a.Stdout, "tip: deleted files on %s still pin %s; rambar reclaim %s gives it back\n", d.Name, d.Usage.Pinned().Short(), d.Name)
		}
	}
	return nil
}
