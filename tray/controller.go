package tray

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"rambar/ramdisk"
)

// Limits on engine calls, so a hung tool cannot freeze the worker (and with
// it every later refresh). Create allows for an administrator password prompt.
const (
	refreshTimeout = 30 * time.Second
	ejectTimeout   = 2 * time.Minute
	createTimeout  = 5 * time.Minute
)

// UI shows menus. The systray glue implements it; tests capture what it is
// given. SetMenu is called from the controller's event loop only.
type UI interface {
	SetMenu(m Menu)
}

// Controller is the tray's one event loop. It owns the State: clicks,
// refresh results and job progress arrive as events and are applied in
// order on the loop. Engine work runs on a single worker goroutine, one call
// at a time, so the loop (and the menu) never waits on a tool; dialogs and
// the optional hooks run on goroutines of their own and report back as
// events.
type Controller struct {
	d  Deps
	ui UI

	events chan func()
	work   chan func(ctx context.Context)
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc

	// Owned by the loop.
	state      menuState
	menu       Menu
	shown      bool
	refreshing bool
	lastUsage  time.Time
	dialogOpen bool
	quitting   bool
	swapping   bool // the machine was swapping at the last refresh
	// settingsGen counts changes to the settings made here; a refresh that
	// read the file before the latest one was saved does not apply it.
	settingsGen int

	// RefreshCost is the duration of the last refresh (List, Memory and,
	// when due, Usage), for measurements.
	refreshCost atomic.Int64
	jobs        sync.WaitGroup
}

// New returns a controller for d that shows its menus on ui.
func New(d Deps, ui UI) *Controller {
	if d.Refresh <= 0 {
		d.Refresh = defaultRefresh
	}
	if d.UsageEvery <= 0 {
		d.UsageEvery = 5 * d.Refresh
	}
	if d.Logf == nil {
		d.Logf = func(string, ...any) {}
	}
	c := &Controller{
		d: d, ui: ui,
		events: make(chan func(), 64),
		work:   make(chan func(ctx context.Context), 64),
		done:   make(chan struct{}),
	}
	c.state.Caps = d.Engine.Caps()
	c.state.Features = d.features()
	c.state.Settings = ramdisk.DefaultSettings()
	return c
}

// Run is the event loop. It returns when ctx is cancelled or the user quits,
// after the jobs it started have stopped.
func (c *Controller) Run(ctx context.Context) {
	c.ctx, c.cancel = context.WithCancel(ctx)
	defer func() {
		c.cancel()
		close(c.done)
		c.jobs.Wait()
	}()
	c.jobs.Add(1)
	go c.worker()

	c.enqueue(c.loadSettings)
	if li := c.d.LaunchAtLogin; c.state.Features.LaunchAtLogin {
		c.goJob(func(ctx context.Context) {
			on, err := li.Get()
			c.post(func() {
				if err != nil {
					c.d.Logf("launch at login: %v", err)
				}
				c.state.LaunchAtLogin = on
			})
		})
	}
	c.refresh(true)
	c.render()
	tick := time.NewTicker(c.d.Refresh)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case f := <-c.events:
			f()
		case <-tick.C:
			c.refresh(false)
		}
		c.render()
	}
}

// Click handles a click on the item with that key. Safe from any goroutine;
// a key that is no longer in the menu (a stale item) is ignored.
func (c *Controller) Click(key string) {
	c.post(func() { c.handle(key) })
}

// RefreshNow asks for a refresh (the menu was opened). Safe from any goroutine.
func (c *Controller) RefreshNow() { c.post(func() { c.refresh(false) }) }

// Quit leaves without asking and without ejecting (a signal). Safe from any goroutine.
func (c *Controller) Quit() { c.post(c.quit) }

// RefreshCost is how long the last refresh took.
func (c *Controller) RefreshCost() time.Duration { return time.Duration(c.refreshCost.Load()) }

// post runs f on the loop. It never blocks once the loop has ended.
func (c *Controller) post(f func()) {
	select {
	case c.events <- f:
	case <-c.done:
	}
}

// enqueue queues engine work on the worker, in order.
func (c *Controller) enqueue(j func(ctx context.Context)) {
	select {
	case c.work <- j:
	case <-c.done:
	}
}

func (c *Controller) worker() {
	defer c.jobs.Done()
	for {
		select {
		case j := <-c.work:
			j(c.ctx)
		case <-c.ctx.Done():
			return
		}
	}
}

// goJob runs a long job (a hook, a dialog) on its own goroutine.
func (c *Controller) goJob(j func(ctx context.Context)) {
	c.jobs.Add(1)
	go func() {
		defer c.jobs.Done()
		j(c.ctx)
	}()
}

func (c *Controller) render() {
	c.state.Caches = c.cacheTargets()
	m := buildMenu(c.state)
	if c.shown && reflect.DeepEqual(m, c.menu) {
		return
	}
	c.menu, c.shown = m, true
	c.ui.SetMenu(m)
}

// notify shows a notification off the loop.
func (c *Controller) notify(title, text string) {
	if c.d.Notify == nil {
		c.d.Logf("notification (no notifier): %s: %s", title, text)
		return
	}
	c.goJob(func(context.Context) {
		if err := c.d.Notify(title, text); err != nil {
			c.d.Logf("notify: %v", err)
		}
	})
}

func (c *Controller) loadSettings(ctx context.Context) {
	s, err := c.d.Store.Load()
	c.post(func() {
		if err != nil {
			if !c.state.Settings.ShowMemoryInTitle && len(c.state.Settings.Presets) == 0 {
				c.notify("RAMBar settings not read", short(err))
			}
			return
		}
		c.state.Settings = s
	})
}

type measured struct {
	u   ramdisk.Usage
	err error
}

// refresh lists disks and memory on the worker; Usage is measured on every
// refresh unless it is costly, then every UsageEvery (and for new disks).
func (c *Controller) refresh(forceUsage bool) {
	if c.refreshing || c.quitting {
		return
	}
	c.refreshing = true
	all := forceUsage || !c.state.Caps.HeldIsCostly || time.Since(c.lastUsage) >= c.d.UsageEvery
	known := map[string]bool{}
	for _, d := range c.state.Disks {
		if d.Measured {
			known[d.Volume.Name] = true
		}
	}
	disks := c.d.Disks
	gen := c.settingsGen
	c.enqueue(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
		defer cancel()
		start := time.Now()
		vs, lerr := c.d.Engine.List(ctx)
		mem, merr := c.d.Engine.Memory(ctx)
		us := map[string]measured{}
		marks := map[string]bool{}
		keptNow := map[string]bool{}
		incomplete := map[string]bool{}
		for _, v := range vs {
			keptNow[v.Name] = disks != nil && disks.Kept(v)
			if all || !known[v.Name] {
				u, err := c.d.Engine.Usage(ctx, v)
				us[v.Name] = measured{u, err}
			}
			if disks != nil {
				marks[v.Name] = disks.Unsaved(v)
				incomplete[v.Name] = disks.Incomplete(v)
			}
		}
		s, serr := c.d.Store.Load()
		cost := time.Since(start)
		c.refreshCost.Store(int64(cost))
		c.post(func() {
			c.refreshing = false
			if all {
				c.lastUsage = start
			}
			c.applyRefresh(vs, lerr, mem, merr, us, marks, keptNow)
			for i := range c.state.Disks {
				c.state.Disks[i].Incomplete = incomplete[c.state.Disks[i].Volume.Name]
			}
			// Settings read before a change made here was saved are stale.
			if serr == nil && gen == c.settingsGen {
				c.state.Settings = s
			}
		})
	})
}

func (c *Controller) applyRefresh(vs []ramdisk.Volume, lerr error, mem ramdisk.Memory, merr error, us map[string]measured, marks, kept map[string]bool) {
	if merr != nil && !sameErr(merr, c.state.MemoryErr) {
		c.d.Logf("memory: %v", merr)
	}
	c.state.Memory, c.state.MemoryErr = mem, merr
	if lerr != nil {
		if !sameErr(lerr, c.state.ListErr) {
			c.d.Logf("list: %v", lerr)
		}
		c.state.ListErr = lerr
		return
	}
	c.state.ListErr = nil
	old := map[string]diskState{}
	for _, d := range c.state.Disks {
		old[d.Volume.Name] = d
	}
	disks := make([]diskState, 0, len(vs))
	for _, v := range vs {
		d, ok := old[v.Name]
		if !ok {
			d = diskState{}
		}
		delete(old, v.Name)
		d.Volume = v
		if m, ok := us[v.Name]; ok {
			if m.err != nil && errors.Is(m.err, ramdisk.ErrNotFound) {
				continue // gone between List and Usage: the next refresh says so
			}
			d.Usage, d.UsageErr, d.Measured = m.u, m.err, true
		}
		d.Kept = kept[v.Name]
		if mark, ok := marks[v.Name]; ok {
			d.Unsaved = mark
		}
		if c.state.Creating == v.Name {
			c.state.Creating = ""
		}
		disks = append(disks, d)
	}
	for name, d := range old {
		switch d.Op {
		case opReclaiming, opEjecting:
			// Remade or ejected by this app right now: not news.
			disks = append(disks, d)
			continue
		}
		c.notify(name+" is gone", "It was ejected outside RAMBar or lost (sleep, a crash of its helper); what it held is gone.")
	}
	sortDisks(disks)
	c.warnOnChange(c.state.Disks, disks, mem, merr)
	c.state.Disks = disks
}

// warnOnChange notifies once when the machine starts swapping while RAM disks
// hold memory, and once when a disk crosses 90% full; the menu's warning
// entries stay for as long as the condition does.
func (c *Controller) warnOnChange(before, after []diskState, mem ramdisk.Memory, merr error) {
	c.repairIfGone(before, after)
	var held ramdisk.Size
	wasFull := map[string]bool{}
	for _, d := range before {
		wasFull[d.Volume.Name] = d.Measured && d.UsageErr == nil && d.Usage.NearlyFull()
	}
	for _, d := range after {
		if !d.Measured || d.UsageErr != nil {
			continue
		}
		held += d.Usage.Held
		if d.Usage.NearlyFull() && !wasFull[d.Volume.Name] {
			c.notify(d.Volume.Name+" is nearly full", fmt.Sprintf("%.0f%% of %s used; writes will fail when it is full.", 100*d.Usage.Fill(), d.Volume.Size.Short()))
		}
	}
	swapping := merr == nil && mem.Swapping()
	if swapping && !c.swapping && held > 0 {
		c.notify("Swapping while RAM disks hold "+held.Short(),
			fmt.Sprintf("This machine has %s in swap: RAM disk contents may now be on the SSD. Eject disks you do not need.", mem.SwapUsed.Short()))
	}
	if merr == nil {
		c.swapping = swapping
	}
}

// sameErr reports whether two errors say the same, so a failure repeated at
// every refresh is logged once.
func sameErr(a, b error) bool { return a != nil && b != nil && a.Error() == b.Error() }

func sortDisks(ds []diskState) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && ds[j].Volume.Name < ds[j-1].Volume.Name; j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

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
		c.open(disk.Volume)
	case actCopyPath:
		c.copyPath(disk.Volume)
	case actEject:
		c.eject(disk, false)
	case actForceEject:
		c.eject(disk, true)
	case actEjectAll:
		for i := range c.state.Disks {
			if c.state.Disks[i].Op == opNone {
				c.eject(&c.state.Disks[i], false)
			}
		}
	case actNewSize:
		c.create(ramdisk.Request{Size: a.Size}, "RAM Disk")
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
	case actReclaim:
		c.runHook(disk, opReclaiming, func(ctx context.Context, v ramdisk.Volume, p ProgressFunc) (string, error) {
			freed, err := c.d.Disks.Reclaim(ctx, v, units(p))
			return freed.Short(), err
		}, func(d *diskState, freed string) {
			c.notify("Reclaimed "+freed, d.Volume.Name+" gave back "+freed+" of memory.")
			c.refresh(true)
		})
	case actBenchmark:
		c.runHook(disk, opBenchmarking, c.d.Benchmark, func(d *diskState, summary string) {
			title := "Benchmark of " + d.Volume.Name
			if c.d.Dialogs == nil {
				c.notify(title, summary)
				return
			}
			c.goJob(func(ctx context.Context) { c.d.Dialogs.Message(ctx, title, summary) })
		})
	case actToggleTitle:
		c.toggleTitle()
	case actToggleLogin:
		c.toggleLogin()
	case actExplain:
		c.notify(it.Title, a.Text)
	case actQuit:
		c.askQuit()
	case actCacheToggle:
		c.toggleCache(disk, a.Text)
	}
}

func (c *Controller) open(v ramdisk.Volume) {
	if c.d.Open == nil {
		c.notify("Can't open "+v.Name, "no file manager is known on this system")
		return
	}
	c.goJob(func(context.Context) {
		if err := c.d.Open(v.MountPoint); err != nil {
			c.post(func() { c.notify("Can't open "+v.Name, short(err)) })
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
		c.post(func() { c.notify("Path of "+v.Name, v.MountPoint) })
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
		c.notify("Can't eject "+name, busyLine(be)+". Close them, or use Force Eject in its menu.")
	default:
		c.notify("Can't eject "+name, short(err))
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
// name after base ("RAM Disk", "RAM Disk 2"…).
func (c *Controller) create(r ramdisk.Request, base string) {
	if c.state.Creating != "" {
		c.notify("Already making a RAM disk", "Wait until "+c.state.Creating+" is ready.")
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
			v, err := c.d.Disks.Create(ctx, r)
			c.post(func() {
				if err == nil {
					c.created(v)
					return
				}
				c.state.Creating = ""
				c.notify("Can't make "+r.Name, short(err))
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
			c.notify("Can't make "+r.Name, short(err))
		})
	})
}

func (c *Controller) created(v ramdisk.Volume) {
	c.state.Creating = ""
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
		c.notify("Can't ask for a size", "no dialog tool is available; use: rambar create NAME SIZE")
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
	form := NewDiskForm{Name: firstFreeName("RAM Disk", names), Size: "4G", FS: defaultFS(c.state.Caps)}
	c.goJob(func(ctx context.Context) {
		f := facts()
		plan, err := c.d.Dialogs.NewDisk(ctx, form, f.Caps.FileSystems, func(x NewDiskForm) (ramdisk.Plan, error) { return checkForm(x, f) })
		c.post(func() {
			c.dialogOpen = false
			switch {
			case errors.Is(err, ramdisk.ErrCancelled):
			case err != nil:
				c.notify("Can't make a RAM disk", short(err))
			default:
				c.create(ramdisk.Request{Name: plan.Name, Size: plan.Size, FS: plan.FS, Hidden: plan.Hidden, Force: plan.Forced}, "")
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
			c.notify("Can't make "+preset.Name, short(err))
			return
		}
		c.create(ramdisk.Request{Name: preset.Name, Size: size, FS: preset.FS, Hidden: preset.Hidden}, "")
		return
	}
	if c.state.Creating != "" {
		return
	}
	c.state.Creating, c.state.CreatingProgress = preset.Name, jobProgress{}
	var last atomic.Int64
	last.Store(-1)
	progress := func(done, total int64) {
		if pc := int64(jobProgress{done, total}.Percent()); last.Swap(pc) != pc {
			c.post(func() {
				if c.state.Creating == preset.Name {
					c.state.CreatingProgress = jobProgress{done, total}
				}
			})
		}
	}
	c.goJob(func(ctx context.Context) {
		v, err := c.d.Disks.MountPreset(ctx, preset, units(progress))
		c.post(func() {
			c.state.CreatingProgress = jobProgress{}
			if err != nil {
				c.state.Creating = ""
				c.notify("Can't make "+preset.Name, short(err))
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
	e := presetEditor{store: c.d.Store, dlg: c.d.EditPresets, fss: c.state.Caps.FileSystems, physical: c.state.Memory.Physical,
		saved: func(s ramdisk.Settings) {
			c.post(func() {
				c.settingsGen++
				c.state.Settings = s
			})
		}}
	c.goJob(func(ctx context.Context) {
		mount, err := f(e, ctx)
		if err != nil && !errors.Is(err, ramdisk.ErrCancelled) {
			if perr := e.dlg.Problem(ctx, "Presets not changed", err.Error()); perr != nil && !errors.Is(perr, ramdisk.ErrCancelled) {
				c.post(func() { c.notify("Presets not changed", short(err)) })
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

// runHook runs a per-disk hook with progress, then ok on the loop.
func (c *Controller) runHook(d *diskState, op opKind, hook func(context.Context, ramdisk.Volume, ProgressFunc) (string, error), ok func(*diskState, string)) {
	if d.Op != opNone || hook == nil {
		return
	}
	d.Op, d.Progress = op, jobProgress{}
	v := d.Volume
	var last atomic.Int64
	last.Store(-1)
	progress := func(done, total int64) {
		pc := int64(jobProgress{done, total}.Percent())
		if last.Swap(pc) == pc {
			return // throttle: only changes of a whole percent reach the menu
		}
		c.post(func() {
			if d, ok := c.state.Disk(v.Name); ok && d.Op == op {
				d.Progress = jobProgress{done, total}
			}
		})
	}
	c.goJob(func(ctx context.Context) {
		res, err := hook(ctx, v, progress)
		c.post(func() {
			d, found := c.state.Disk(v.Name)
			if found {
				d.Op, d.Progress = opNone, jobProgress{}
			}
			if err != nil {
				c.notify(fmt.Sprintf("%s of %s failed", opNoun(op), v.Name), short(err))
				return
			}
			if found {
				ok(d, res)
			}
		})
	})
}

func opNoun(op opKind) string {
	switch op {
	case opSaving:
		return "Saving"
	case opReclaiming:
		return "Reclaiming"
	case opBenchmarking:
		return "Benchmark"
	}
	return "Job"
}

func (c *Controller) toggleTitle() {
	want := !c.state.Settings.ShowMemoryInTitle
	c.state.Settings.ShowMemoryInTitle = want
	c.settingsGen++
	phys := c.state.Memory.Physical
	c.enqueue(func(ctx context.Context) {
		_, err := c.d.Store.Update(phys, func(s *ramdisk.Settings) error {
			s.ShowMemoryInTitle = want
			return nil
		})
		if err != nil {
			c.post(func() {
				c.state.Settings.ShowMemoryInTitle = !want
				c.notify("Setting not saved", short(err))
			})
		}
	})
}

func (c *Controller) toggleLogin() {
	want := !c.state.LaunchAtLogin
	c.state.LaunchAtLogin = want
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
				c.notify("Launch at Login not changed", short(err))
			}
		})
	})
}

func (c *Controller) askQuit() {
	n := len(c.state.Disks)
	switch {
	case n == 0 || c.state.Settings.EjectOnQuit == ramdisk.QuitLeave:
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
			choice, err := c.d.Dialogs.Quit(ctx, n)
			c.post(func() {
				c.dialogOpen = false
				if err != nil && !errors.Is(err, ramdisk.ErrCancelled) {
					c.notify("RAMBar", short(err))
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

// ejectAndQuit ejects every disk, reports the ones that stay, then quits.
func (c *Controller) ejectAndQuit() {
	for i := range c.state.Disks {
		if c.state.Disks[i].Op == opNone {
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
