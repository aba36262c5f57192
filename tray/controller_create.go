package tray

import (
	"context"
	"errors"
	"sync/atomic"

	"rambar/ramdisk"
)

// facts returns what a plan needs, from what the loop knows now; call the
// returned func off the loop (it reads the mount root's names).
func (c *Controller) facts() func() ramdisk.Facts {
	caps, mem, held := c.state.Caps, c.state.Memory, c.state.Held()
	vs := make([]ramdisk.Volume, len(c.state.Disks))
	for i, d := range c.state.Disks {
		vs[i] = d.Volume
	}
	return func() ramdisk.Facts { return ramdisk.NewFacts(caps, mem, vs, held) }
}

// units adapts the tray's done-of-total progress to the use cases'.
func units(p ProgressFunc) ramdisk.ProgressFunc {
	return func(x ramdisk.Progress) { p(x.Units()) }
}

// create makes a disk on the worker. An empty r.Name takes the first free
// name after base ("RAMDisk", "RAMDisk-2"…).
func (c *Controller) create(r ramdisk.Request, base string) { c.createWith(r, base, NewDiskForm{}) }

// createWith makes a disk whose contents are kept or mirrored as form says
// (Custom…'s choice; the zero form for a plain disk).
func (c *Controller) createWith(r ramdisk.Request, base string, form NewDiskForm) {
	if c.state.Creating != "" {
		c.notify(c.p.T("Already making a RAM disk"), c.p.T("Wait until %s is ready.", c.state.Creating))
		return
	}
	facts := c.facts()
	c.state.Creating = r.Name
	if r.Name == "" {
		c.state.Creating = base
	}
	c.enqueue(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, createTimeout)
		defer cancel()
		f := facts()
		// Plan against memory as it is now, not as of the last refresh.
		if m, err := c.d.Engine.Memory(ctx); err == nil {
			f.Memory = m
		}
		if r.Name == "" {
			names := append([]string{}, f.Taken...)
			for _, v := range f.Mounted {
				names = append(names, v.Name)
			}
			r.Name = firstFreeName(base, names)
		}
		if c.d.Disks != nil {
			// The use case plans again under the disk's lock.
			c.post(func() { c.state.Creating = r.Name })
			v, err := c.d.Disks.Create(ctx, r, form.Contents, form.Folder, form.InPlace)
			c.post(func() {
				if err == nil {
					c.created(v)
					return
				}
				c.state.Creating = ""
				c.notify(c.p.T("Can't make %s", r.Name), short(c.p, err))
			})
			return
		}
		plan, err := ramdisk.NewPlan(r, f)
		if err == nil {
			c.post(func() { c.state.Creating = plan.Name })
			var v ramdisk.Volume
			if v, err = c.d.Engine.Create(ctx, plan); err == nil {
				c.post(func() { c.created(v) })
				return
			}
		}
		c.post(func() {
			c.state.Creating = ""
			c.notify(c.p.T("Can't make %s", r.Name), short(c.p, err))
		})
	})
}

func (c *Controller) created(v ramdisk.Volume) {
	c.state.Creating = ""
	for _, n := range v.Notes {
		if w, ok := n.Warning(); ok {
			c.notify(c.p.T("%s: work kept in a snapshot", v.Name), Say(c.p, w))
		}
	}
	if _, ok := c.state.Disk(v.Name); !ok {
		c.state.Disks = append(c.state.Disks, diskState{Volume: v})
		sortDisks(c.state.Disks)
	}
	c.refresh(false)
}

// checkForm is what the Custom… dialog shows before anything is made: the plan
// for the answers given, or why they are refused.
func checkForm(form NewDiskForm, f ramdisk.Facts) (ramdisk.Plan, error) {
	return ramdisk.PlanInput(ramdisk.Input{Name: form.Name, Size: form.Size, FS: form.FS}, f)
}

func (c *Controller) custom() {
	if c.d.Dialogs == nil {
		c.notify(c.p.T("Can't ask for a size"), c.p.T("no dialog tool is available; use: rambar create NAME SIZE"))
		return
	}
	if c.dialogOpen {
		return
	}
	c.dialogOpen = true
	facts := c.facts()
	var names []string
	for _, d := range c.state.Disks {
		names = append(names, d.Volume.Name)
	}
	form := NewDiskForm{Name: firstFreeName("RAMDisk", names), Size: "4G", FS: defaultFS(c.state.Caps)}
	c.goJob(func(ctx context.Context) {
		f := facts()
		answers, plan, err := c.d.Dialogs.NewDisk(ctx, form, f.Caps.FileSystems, func(x NewDiskForm) (ramdisk.Plan, error) { return checkForm(x, f) })
		c.post(func() {
			c.dialogOpen = false
			switch {
			case errors.Is(err, ramdisk.ErrCancelled):
			case err != nil:
				c.notify(c.p.T("Can't make a RAM disk"), short(c.p, err))
			default:
				c.createWith(ramdisk.Request{Name: plan.Name, Size: plan.Size, FS: plan.FS, Hidden: plan.Hidden, Force: plan.Forced}, "", answers)
			}
		})
	})
}

func (c *Controller) mountPreset(name string) {
	p, ok := c.state.Settings.Preset(name)
	if !ok {
		return
	}
	preset := *p
	if c.d.Disks == nil {
		size, err := ramdisk.ParseSize(preset.Size, c.state.Memory.Physical)
		if err != nil {
			c.notify(c.p.T("Can't make %s", preset.Name), short(c.p, err))
			return
		}
		c.create(ramdisk.Request{Name: preset.Name, Size: size, FS: preset.FS, Hidden: preset.Hidden}, "")
		return
	}
	if c.state.Creating != "" {
		return
	}
	c.state.Creating, c.state.CreatingProgress = preset.Name, ramdisk.Progress{}
	var last atomic.Int64
	last.Store(-1)
	var ended atomic.Bool
	progress := func(done, total int64) {
		if pc := int64(jobAt(done, total).Percent()); last.Swap(pc) != pc {
			c.post(func() {
				// A refresh that saw the disk mounted cleared Creating; while
				// its contents are restored, it is still being made.
				if c.state.Creating == "" && !ended.Load() {
					c.state.Creating = preset.Name
				}
				if c.state.Creating == preset.Name {
					c.state.CreatingProgress = jobAt(done, total)
				}
			})
		}
	}
	c.goJob(func(ctx context.Context) {
		v, err := c.d.Disks.MountPreset(ctx, preset, units(progress))
		c.post(func() {
			ended.Store(true)
			c.state.CreatingProgress = ramdisk.Progress{}
			if err != nil {
				c.state.Creating = ""
				c.notify(c.p.T("Can't make %s", preset.Name), short(c.p, err))
				return
			}
			c.created(v)
		})
	})
}

// editPresets runs one pass of the preset editor off the loop. Saved
// settings reach the menu at once; a preset the user chose to mount now is
// mounted; a failure (a corrupt or newer settings file, which is then left
// untouched) is shown in a window.
func (c *Controller) editPresets(f func(presetEditor, context.Context) (string, error)) {
	if c.dialogOpen {
		return
	}
	c.dialogOpen = true
	e := presetEditor{lang: c.p, store: c.d.Store, dlg: c.d.EditPresets, fss: c.state.Caps.FileSystems, physical: c.state.Memory.Physical,
		saved: func(s ramdisk.Settings) {
			c.post(func() {
				c.settingsGen++
				c.state.Settings = s
			})
		}}
	c.goJob(func(ctx context.Context) {
		mount, err := f(e, ctx)
		if err != nil && !errors.Is(err, ramdisk.ErrCancelled) {
			if perr := e.dlg.Problem(ctx, c.p.T("Presets not changed"), c.p.Err(err)); perr != nil && !errors.Is(perr, ramdisk.ErrCancelled) {
				c.post(func() { c.notify(c.p.T("Presets not changed"), short(c.p, err)) })
			}
		}
		c.post(func() {
			c.dialogOpen = false
			if mount != "" {
				c.mountPreset(mount)
			}
		})
	})
}
