package main

import (
	"context"
	"fmt"
	"strings"

	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "reclaim", Summary: "give back memory pinned by deleted files",
		Doc:   "It moves the contents out, makes the disk again, moves them back and verifies them by content hash.",
		Args:  []arg{{Name: "NAME", Doc: "a mounted RAM disk"}},
		Flags: []flagSpec{flagBool("force", "reclaim even when little memory is pinned")},
		JSON:  true, Example: "reclaim Work", Order: 35, Run: runReclaim})
}

func runReclaim(ctx context.Context, a *App, in *input) error {
	force, asJSON, pos := in.Bool("force"), in.Bool("json"), in.Args
	v, err := a.findDisk(ctx, pos[0])
	if err != nil {
		return err
	}
	k, err := a.keeper()
	if err != nil {
		return err
	}
	e, _ := a.Engine()
	u, err := e.Usage(ctx, v)
	if err != nil {
		return fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if !u.ReclaimWorthwhile() && !*force {
		return refusedError{fmt.Errorf("reclaim %s: only %s is pinned (worth it from %s and %.0f%% of the size); use --force to do it anyway",
			v.Name, u.Pinned().Short(), ramdisk.ReclaimThreshold.Short(), 100*ramdisk.ReclaimFraction)}
	}
	plan, err := a.replanFor(ctx, v, u)
	if err != nil {
		return err
	}
	fn, done := a.contentsProgress(v.Name)
	if *asJSON {
		fn = nil
	}
	res, err := k.Reclaim(ctx, e, v, plan, fn)
	done()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.Stdout, struct {
			Version int `json:"version"`
			mirror.ReclaimResult
		}{jsonVersion, res})
	}
	gave := res.Before.Held - res.After.Held
	fmt.Fprintf(a.Stdout, "Reclaimed %s: %s (%s) moved out and back, verified; memory held %s → %s",
		v.Name, ramdisk.Plural(res.Files, "file"), ramdisk.Size(res.Bytes).Short(), res.Before.Held.Short(), res.After.Held.Short())
	if gave > 0 {
		fmt.Fprintf(a.Stdout, " (%s given back)", gave.Short())
	}
	fmt.Fprintln(a.Stdout)
	return nil
}

// replanFor plans the same disk again (name, size, file system, hidden) as
// if v were not mounted, so Reclaim can make it anew.
func (a *App) replanFor(ctx context.Context, v ramdisk.Volume, u ramdisk.Usage) (ramdisk.Plan, error) {
	f, err := a.facts(ctx)
	if err != nil {
		return ramdisk.Plan{}, err
	}
	var mounted []ramdisk.Volume
	for _, m := range f.Mounted {
		if m.Name != v.Name {
			mounted = append(mounted, m)
		}
	}
	f.Mounted = mounted
	var taken []string
	for _, n := range f.Taken {
		if !strings.EqualFold(n, v.Name) {
			taken = append(taken, n)
		}
	}
	f.Taken = taken
	if u.HeldKnown {
		f.Held -= u.Held
	}
	// The disk exists already: memory checks were passed when it was made.
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: v.Name, Size: v.Size, FS: v.FS, Hidden: v.Hidden, Force: true}, f)
	if err != nil {
		return p, fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if v.MountPoint != "" {
		p.MountPoint = v.MountPoint
	}
	return p, nil
}
