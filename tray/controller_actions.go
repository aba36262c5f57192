package tray

import (
	"context"
	"errors"
	"sync/atomic"

	"rambar/i18n"
	"rambar/ramdisk"
)

func (c *Controller) handle(key string) {
	it, ok := c.menu.Find(key)
	if !ok || it.Disabled || c.quitting {
		c.d.Logf("click on %q dropped (stale or disabled)", key)
		return
	}
	a := it.action
	var disk *diskState
	if a.Disk != "" {
		if disk, ok = c.state.Disk(a.Disk); !ok {
			return
		}
	}
	switch a.Kind {
	case actOpen:
		c.open(disk.Volume.Name, disk.Volume.MountPoint)
	case actOpenFolder:
		c.open(c.p.T("%s's folder", disk.Volume.Name), a.Text)
	case actCopyPath:
		c.copyPath(disk.Volume)
	case actEject:
		c.eject(disk, false)
	case actForceEject:
		c.eject(disk, true)
	case actEjectAll:
		for i := range c.state.Disks {
			if c.state.Disks[i].Op == opNone && c.state.Disks[i].Whose.Text == "" {
				c.eject(&c.state.Disks[i], false)
			}
		}
	case actNewSize:
		c.create(ramdisk.Request{Size: a.Size}, "RAMDisk")
	case actNewCustom:
		c.custom()
	case actMountPreset:
		c.mountPreset(a.Preset)
	case actEditPresets:
		c.editPresets(presetEditor.run)
	case actSaveAsPreset:
		v := disk.Volume
		c.editPresets(func(e presetEditor, ctx context.Context) (string, error) { return "", e.saveAs(ctx, v) })
	case actSaveNow:
		c.runHook(disk, opSaving, func(ctx context.Context, v ramdisk.Volume, p ProgressFunc) (string, error) {
			return "", c.d.Disks.Save(ctx, v, units(p))
		}, func(d *diskState, _ string) { d.Unsaved = false })
	case actKeep:
		c.keep(disk, "")
	case actMirrorTo:
		c.mirrorTo(disk)
	case actRefresh:
		c.takeFolderChanges(disk)
	case actReclaim:
		c.reclaim(disk)
	case actBenchmark:
		c.benchmark(disk)
	case actToggleTitle:
		c.toggleTitle()
	case actToggleContinuous:
		want := !c.state.Settings.SaveContinuously
		c.changeSetting(func(s *ramdisk.Settings) { s.SaveContinuously = want },
			func(s *ramdisk.Settings) { s.SaveContinuously = !want })
	case actToggleLogin:
		c.toggleLogin()
	case actExplain:
		c.notify(it.Title, a.Text)
	case actSetQuit:
		c.setQuit(a.Text)
	case actAbout:
		c.about()
	case actQuit:
		c.askQuit()
	case actCacheToggle:
		c.toggleCache(disk, a.Text)
	case actCheckUpdates:
		c.checkUpdates()
	case actToggleDailyUpdates:
		c.toggleDailyUpdates()
	}
}

// takeFolderChanges runs Take Folder's Changes, showing its progress in
// the menu.
func (c *Controller) takeFolderChanges(disk *diskState) {
	c.runHook(disk, opRefreshing, func(ctx context.Context, v ramdisk.Volume, p ProgressFunc) (string, error) {
		n, err := c.d.Disks.Refresh(ctx, v, units(p))
		return c.p.T("%d changes", n), err
	}, func(d *diskState, took string) {
		d.KeptInFolder, d.Unsaved = 0, false
		c.notify(c.p.T("Took the folder's changes"), c.p.T("%s now has %s from its folder.", d.Volume.Name, took))
		c.refresh(true)
	})
}

// reclaim runs Reclaim, showing its progress in the menu.
func (c *Controller) reclaim(disk *diskState) {
	c.runHook(disk, opReclaiming, func(ctx context.Context, v ramdisk.Volume, p ProgressFunc) (string, error) {
		freed, err := c.d.Disks.Reclaim(ctx, v, units(p))
		return c.p.Size(freed), err
	}, func(d *diskState, freed string) {
		c.notify(c.p.T("Reclaimed %s", freed), c.p.T("%s gave back %s of memory.", d.Volume.Name, freed))
		c.refresh(true)
	})
}

// open shows path (what names) in the file manager.
func (c *Controller) open(what, path string) {
	if c.d.Open == nil {
		c.notify(c.p.T("Can't open %s", what), c.p.T("no file manager is known on this system"))
		return
	}
	c.goJob(func(context.Context) {
		if err := c.d.Open(path); err != nil {
			c.post(func() { c.notify(c.p.T("Can't open %s", what), short(c.p, err)) })
		}
	})
}

func (c *Controller) copyPath(v ramdisk.Volume) {
	c.goJob(func(context.Context) {
		if c.d.CopyPath != nil {
			if err := c.d.CopyPath(v.MountPoint); err == nil {
				return
			} else {
				c.d.Logf("copy path: %v", err)
			}
		}
		c.post(func() { c.notify(c.p.T("Path of %s", v.Name), v.MountPoint) })
	})
}

func (c *Controller) eject(d *diskState, force bool) {
	if d.Op != opNone {
		return
	}
	d.Op = opEjecting
	v := d.Volume
	eject := c.d.Engine.Eject
	if c.d.Disks != nil {
		eject = c.d.Disks.Eject
	}
	c.enqueue(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, ejectTimeout)
		defer cancel()
		err := eject(ctx, v, force)
		c.post(func() { c.ejected(v.Name, err) })
	})
}

func (c *Controller) ejected(name string, err error) {
	d, ok := c.state.Disk(name)
	if !ok {
		return
	}
	d.Op = opNone
	var be *ramdisk.BusyError
	switch {
	case err == nil || errors.Is(err, ramdisk.ErrNotFound):
		c.removeDisk(name)
	case errors.As(err, &be):
		d.Busy = be
		text := c.p.T("%s. Close them, or use Force Eject in its menu.", busyLine(c.p, be))
		if d.InPlace != "" {
			text = c.p.T("%s. Close them, or use Force Eject in its menu. It stays in place at %s; Save Now writes it back meanwhile.", busyLine(c.p, be), d.InPlace)
		}
		c.notify(c.p.T("Can't eject %s", name), text)
	default:
		c.notify(c.p.T("Can't eject %s", name), short(c.p, err))
	}
}

func (c *Controller) removeDisk(name string) {
	out := c.state.Disks[:0]
	for _, d := range c.state.Disks {
		if d.Volume.Name != name {
			out = append(out, d)
		}
	}
	c.state.Disks = out
}

// runHook runs a per-disk hook with progress, then ok on the loop.
func (c *Controller) runHook(d *diskState, op opKind, hook func(context.Context, ramdisk.Volume, ProgressFunc) (string, error), ok func(*diskState, string)) {
	if d.Op != opNone || hook == nil {
		return
	}
	d.Op, d.Progress = op, ramdisk.Progress{}
	v := d.Volume
	var last atomic.Int64
	last.Store(-1)
	progress := func(done, total int64) {
		pc := int64(jobAt(done, total).Percent())
		if last.Swap(pc) == pc {
			return // throttle: only changes of a whole percent reach the menu
		}
		c.post(func() {
			if d, ok := c.state.Disk(v.Name); ok && d.Op == op {
				d.Progress = jobAt(done, total)
			}
		})
	}
	c.goJob(func(ctx context.Context) {
		res, err := hook(ctx, v, progress)
		c.post(func() {
			d, found := c.state.Disk(v.Name)
			if found {
				d.Op, d.Progress = opNone, ramdisk.Progress{}
			}
			if err != nil {
				c.notify(opFailed(c.p, op, v.Name), short(c.p, err))
				return
			}
			if found {
				ok(d, res)
			}
		})
	})
}

// keep starts keeping a plain disk (into folder when it is not ""), its
// first save's progress in the menu.
func (c *Controller) keep(disk *diskState, folder string) {
	c.runHook(disk, opKeeping, func(ctx context.Context, v ramdisk.Volume, p ProgressFunc) (string, error) {
		return "", c.d.Disks.Keep(ctx, v, folder, units(p))
	}, func(d *diskState, _ string) {
		d.Kept, d.Unsaved = true, false
		if folder == "" {
			c.notify(c.p.T("Keeping %s", d.Volume.Name), c.p.T("Saved now, and on every eject; made again, it comes back as it was."))
		} else {
			c.notify(c.p.T("%s mirrors %s", d.Volume.Name, folder), c.p.T("Written there now, and again on every save and eject."))
		}
		c.refresh(true)
	})
}

// mirrorTo asks for the folder a plain disk is to be mirrored to, then
// keeps it there.
func (c *Controller) mirrorTo(disk *diskState) {
	if c.d.EditPresets == nil {
		return
	}
	name := disk.Volume.Name
	c.goJob(func(ctx context.Context) {
		folder, err := c.d.EditPresets.Folder(ctx, c.p.T("An empty folder to mirror %s to", name), "")
		c.post(func() {
			switch {
			case errors.Is(err, ramdisk.ErrCancelled):
			case err != nil:
				c.notify(c.p.T("Can't mirror %s", name), short(c.p, err))
			default:
				if d, ok := c.state.Disk(name); ok {
					c.keep(d, folder)
				}
			}
		})
	})
}

// opFailed is the title of a failed job's notification.
func opFailed(p *i18n.Printer, op opKind, name string) string {
	switch op {
	case opSaving:
		return p.T("Saving of %s failed", name)
	case opReclaiming:
		return p.T("Reclaiming of %s failed", name)
	case opKeeping:
		return p.T("Keeping of %s failed", name)
	case opRefreshing:
		return p.T("Taking the folder's changes of %s failed", name)
	case opBenchmarking:
		return p.T("Benchmark of %s failed", name)
	}
	return p.T("Job of %s failed", name)
}

func (c *Controller) toggleTitle() {
	want := !c.state.Settings.ShowMemoryInTitle
	c.changeSetting(func(s *ramdisk.Settings) { s.ShowMemoryInTitle = want },
		func(s *ramdisk.Settings) { s.ShowMemoryInTitle = !want })
}

// setQuit saves what quitting does with mounted disks.
func (c *Controller) setQuit(choice string) {
	was := c.state.Settings.EjectOnQuit
	if was == choice {
		return
	}
	c.changeSetting(func(s *ramdisk.Settings) { s.EjectOnQuit = choice },
		func(s *ramdisk.Settings) { s.EjectOnQuit = was })
}

// changeSetting applies set to the menu's settings at once and saves it in
// the background; if saving fails, undo puts the menu's copy back and the
// user is told.
func (c *Controller) changeSetting(set, undo func(*ramdisk.Settings)) {
	set(&c.state.Settings)
	c.settingsGen++
	phys := c.state.Memory.Physical
	c.enqueue(func(ctx context.Context) {
		_, err := c.d.Store.Update(phys, func(s *ramdisk.Settings) error {
			set(s)
			return nil
		})
		if err != nil {
			c.post(func() {
				undo(&c.state.Settings)
				c.notify(c.p.T("Setting not saved"), short(c.p, err))
			})
		}
	})
}

// aboutText is the About window's text for a version.
func aboutText(p *i18n.Printer, version string) string {
	if version == "" {
		version = "dev"
	}
	return p.T("RAMBar %s\n"+
		"RAM disks that show what they really cost in memory, and keep their contents safe.\n\n"+
		"Help: run 'rambar help' in a terminal for every command, 'rambar doctor' to check this machine.\n"+
		"Documentation and issues: %s\n"+
		"Newer versions: %s (macOS, with Homebrew: %s)\n"+
		"Free software under the MIT License.", version, HelpURL, ReleaseURL, HomebrewInstall)
}

// Where RAMBar lives, as About and the README name it (a test checks they
// agree, and packaging/rambar.rb's url).
const (
	// HelpURL is where RAMBar's documentation and issue tracker live.
	HelpURL = "https://github.com/rambar/rambar"
	// ReleaseURL is the newest release's page, with RAMBar.dmg.
	ReleaseURL = HelpURL + "/releases/latest"
	// HomebrewInstall installs the cask from RAMBar's tap (rambar/homebrew-rambar).
	HomebrewInstall = "brew install --cask rambar/rambar/rambar"
)

func (c *Controller) about() {
	text := aboutText(c.p, c.d.Version)
	if c.d.Dialogs == nil {
		c.notify(c.p.T("About RAMBar"), text)
		return
	}
	c.goJob(func(ctx context.Context) { c.d.Dialogs.Message(ctx, c.p.T("About RAMBar"), text) })
}

func (c *Controller) toggleLogin() {
	want := !c.state.LaunchAtLogin
	c.state.LaunchAtLogin = want
	c.loginGen++
	li := c.d.LaunchAtLogin
	c.goJob(func(ctx context.Context) {
		err := li.Set(want)
		on, gerr := li.Get()
		c.post(func() {
			if gerr == nil {
				c.state.LaunchAtLogin = on
			} else {
				c.state.LaunchAtLogin = !want
			}
			if err != nil {
				c.notify(c.p.T("Launch at Login not changed"), short(c.p, err))
			}
		})
	})
}

// quitQuestion sorts the disks for the quit dialog: lost or saved by an
// eject, or another RAMBar's (left alone).
func (c *Controller) quitQuestion() QuitQuestion {
	var q QuitQuestion
	for _, d := range c.state.Disks {
		switch {
		case d.Whose.Text != "":
			q.Others = append(q.Others, d.Volume.Name)
		case d.Kept:
			q.Saved = append(q.Saved, d.Volume.Name)
		default:
			q.Lost = append(q.Lost, d.Volume.Name)
		}
	}
	return q
}

func (c *Controller) askQuit() {
	q := c.quitQuestion()
	switch {
	case q.Ejected() == 0 || c.state.Settings.EjectOnQuit == ramdisk.QuitLeave:
		c.quit()
	case c.state.Settings.EjectOnQuit == ramdisk.QuitEject:
		c.ejectAndQuit()
	case c.d.Dialogs == nil:
		c.quit()
	default:
		if c.dialogOpen {
			return
		}
		c.dialogOpen = true
		c.goJob(func(ctx context.Context) {
			choice, err := c.d.Dialogs.Quit(ctx, q)
			c.post(func() {
				c.dialogOpen = false
				if err != nil && !errors.Is(err, ramdisk.ErrCancelled) {
					c.notify(c.p.T("RAMBar"), short(c.p, err))
				}
				switch choice {
				case QuitEjectAll:
					c.ejectAndQuit()
				case QuitLeaveMounted:
					c.quit()
				}
			})
		})
	}
}

// ejectAndQuit ejects every disk this RAMBar made, reports the ones that
// stay, then quits.
func (c *Controller) ejectAndQuit() {
	for i := range c.state.Disks {
		if c.state.Disks[i].Op == opNone && c.state.Disks[i].Whose.Text == "" {
			c.eject(&c.state.Disks[i], false)
		}
	}
	c.quitting = true
	c.enqueue(func(ctx context.Context) {
		// Runs after the ejects queued above; their results are posted first.
		c.post(c.quit)
	})
}

func (c *Controller) quit() {
	c.quitting = true
	if c.d.Quit != nil {
		c.d.Quit()
	}
	c.cancel()
}
