package selftest

import (
	"context"
	"fmt"

	"rambar/disks"
	"rambar/ramdisk"
)

// Sizes of the self-test's disks and of the large file written on each.
const (
	smallSize  = 64 * ramdisk.MiB
	largeSize  = 4 * ramdisk.GiB
	smallLarge = 8 * ramdisk.MiB
	largeLarge = 16 * ramdisk.MiB
)

// madeDisk is a disk this run made, with what was written on it.
type madeDisk struct {
	v       ramdisk.Volume
	plan    ramdisk.Plan
	wrote   map[string]entry
	written int64
}

// hidden reports whether the engine hides disks from the Finder (macOS).
func (r *Runner) hidden() bool { return r.Engine.Caps().CheckHidden(true) == nil }

// Disks makes this run's two disks (64 MiB and 4 GiB, hidden where disks
// can be) through the use case, measures the memory each holds before and
// after files are written on it, reads the files back, and ejects one
// while a process holds it: engine.small, engine.large, engine.hidden,
// files, eject.busy. The disks stay mounted until Cleanup.
func (r *Runner) Disks(ctx context.Context) []Check {
	small, cs := r.memory(ctx, "engine.small", "small", smallSize, smallLarge)
	large, cl := r.memory(ctx, "engine.large", "large", largeSize, largeLarge)
	return []Check{cs, cl, Timed(func() Check { return r.hiddenCheck(ctx, small) }),
		Timed(func() Check { return r.files(small, large) }), Timed(func() Check { return r.busy(ctx, small) })}
}

// memory makes one disk and checks the memory it holds (expectHeld): right
// after it is made, and after the test files are written.
func (r *Runner) memory(ctx context.Context, name, role string, size, large ramdisk.Size) (*madeDisk, Check) {
	var d *madeDisk
	c := Timed(func() Check {
		r.logf("making a %s disk", size)
		diskName, err := r.newDisk(role)
		if err != nil {
			return Failf(name, "%v", err)
		}
		var plan ramdisk.Plan
		cr, err := r.Service().Create(ctx, disks.CreateRequest{
			Input:   ramdisk.Input{Name: diskName, Hidden: r.hidden(), Force: true},
			Exact:   size,
			Planned: func(p ramdisk.Plan) { plan = p },
		})
		if err != nil {
			return Failf(name, "could not make a %s disk: %v", size, err)
		}
		r.made = append(r.made, cr.Volume)
		d = &madeDisk{v: cr.Volume, plan: plan}
		u0, err := r.Engine.Usage(ctx, cr.Volume)
		if err != nil {
			return Failf(name, "%s %s disk made, but its memory could not be measured: %v", size, plan.FS.Label(), err)
		}
		if !u0.HeldKnown {
			return Failf(name, "%s %s disk made, but the memory it holds is not measurable here (%v)", size, plan.FS.Label(), cr.Volume.Notes)
		}
		d.wrote, d.written, err = writeTree(cr.Volume.MountPoint, int64(large), uint64(size))
		if err != nil {
			return Failf(name, "%s disk made, but %v", size, err)
		}
		u1, err := r.Engine.Usage(ctx, cr.Volume)
		if err != nil {
			return Failf(name, "could not measure the %s disk after writing %s: %v", size, ramdisk.Size(d.written), err)
		}
		return heldCheck(name, plan, u0, u1, ramdisk.Size(d.written))
	})
	return d, c
}

// heldCheck compares the memory a disk held when made (u0) and after
// written bytes were put on it (u1) with the plan's rule.
func heldCheck(name string, p ramdisk.Plan, u0, u1 ramdisk.Usage, written ramdisk.Size) Check {
	lo0, hi0, _ := expectHeld(p, 0)
	lo1, hi1, rule := expectHeld(p, written)
	c := Passf(name, "%s %s: holds %s when made, %s with %s written", p.Size.Short(), p.FS.Label(), u0.Held.Short(), u1.Held.Short(), written.Short())
	switch {
	case u0.Held < lo0 || u0.Held > hi0:
		c = Failf(name, "%s %s holds %s when made, want %s to %s", p.Size.Short(), p.FS.Label(), u0.Held.Short(), lo0.Short(), hi0.Short())
	case u1.Held < lo1 || u1.Held > hi1:
		c = Failf(name, "%s %s holds %s with %s written, want %s to %s", p.Size.Short(), p.FS.Label(), u1.Held.Short(), written.Short(), lo1.Short(), hi1.Short())
	}
	c.Rule = rule
	c.Data = map[string]any{"size": int64(p.Size), "fs": p.FS, "allocation": p.Allocation, "hidden": p.Hidden,
		"held_made": int64(u0.Held), "held_written": int64(u1.Held), "written": int64(written), "used": int64(u1.Used)}
	return c
}

// hiddenCheck: a disk asked hidden is listed hidden (macOS: the volume is
// mounted nobrowse, so the Finder does not show it).
func (r *Runner) hiddenCheck(ctx context.Context, d *madeDisk) Check {
	const name = "engine.hidden"
	if !r.hidden() {
		c := Skipf(name, "this engine hides no disk: %v", r.Engine.Caps().CheckHidden(true))
		c.Rule = "macOS only: a disk made with -nobrowse is mounted nobrowse"
		return c
	}
	if d == nil {
		return Failf(name, "no disk to look at (engine.small failed)")
	}
	vs, err := r.Engine.List(ctx)
	if err != nil {
		return Failf(name, "list: %v", err)
	}
	c := Failf(name, "%s is not listed any more", d.v.Name)
	for _, v := range vs {
		if v.Name == d.v.Name {
			c = Passf(name, "%s is mounted nobrowse: the Finder does not show it", v.MountPoint)
			if !v.Hidden {
				c = Failf(name, "%s was made with -nobrowse but is mounted without it: the Finder shows it (erasevolume's mount did not keep the image's nobrowse)", v.MountPoint)
			}
		}
	}
	c.Rule = "a disk made hidden is mounted nobrowse (the mount table's options)"
	return c
}

// files reads back what was written on both disks.
func (r *Runner) files(ds ...*madeDisk) Check {
	const name = "files"
	var n int
	var bytes int64
	for _, d := range ds {
		if d == nil || d.wrote == nil {
			return Failf(name, "no files to read back (a disk was not made)")
		}
		if diff := sameContents(d.v.MountPoint, d.wrote); diff != "" {
			return Failf(name, "%s: read back differs: %s", d.v.Name, diff)
		}
		n += len(d.wrote)
		bytes += d.written
	}
	c := Passf(name, "%d files and links (%s) read back as written on %d disks", n, ramdisk.Size(bytes).Short(), len(ds))
	c.Rule = "every file's size and SHA-256, and each link's target, read back equal"
	return c
}

// unmade forgets a disk this run no longer holds.
func (r *Runner) unmade(v ramdisk.Volume) {
	for i, m := range r.made {
		if m.Name == v.Name {
			r.made = append(r.made[:i], r.made[i+1:]...)
			return
		}
	}
}

// still reports whether a disk of that name is mounted.
func (r *Runner) still(ctx context.Context, name string) (bool, error) {
	vs, err := r.Engine.List(ctx)
	if err != nil {
		return false, fmt.Errorf("list: %w", err)
	}
	for _, v := range vs {
		if v.Name == name {
			return true, nil
		}
	}
	return false, nil
}
