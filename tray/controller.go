package tray

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"rambar/i18n"
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
	p  *i18n.Printer // Deps.Lang: the words, in the user's language

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
	// loginGen counts Launch at Login toggles, so the first reading of the
	// login item, if it comes late, does not undo a toggle.
	loginGen int

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
	c.p = d.Lang
	c.state.P = d.Lang
	c.state.Caps = d.Engine.Caps()
	c.state.Features = d.features()
	c.state.Settings = ramdisk.DefaultSettings()
	if d.Status != nil {
		d.Status.watch(func() {
			c.post(func() { c.state.Status, c.state.StatusProgress = d.Status.get() })
		})
	}
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
		gen := c.loginGen
		c.goJob(func(ctx context.Context) {
			on, err := li.Get()
			c.post(func() {
				if err != nil {
					c.d.Logf("launch at login: %v", err)
				}
				if gen == c.loginGen { // not toggled meanwhile: that answer is newer
					c.state.LaunchAtLogin = on
				}
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
	c.goJob(func(ctx context.Context) {
		if err := c.d.Notify(title, text); err != nil {
			c.d.Logf("notify: %v", err)
			// No notification server: a window says it instead, so a
			// failed action is never silent.
			if c.d.Dialogs != nil {
				c.d.Dialogs.Message(ctx, title, text+"\n\n(Shown here because the notification could not be: "+short(c.p, err)+")")
			}
		}
	})
}

func (c *Controller) loadSettings(ctx context.Context) {
	s, err := c.d.Store.Load()
	c.post(func() {
		if err != nil {
			if !c.state.Settings.ShowMemoryInTitle && len(c.state.Settings.Presets) == 0 {
				c.notify(c.p.T("RAMBar settings not read"), short(c.p, err))
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
	before := make([]ramdisk.Volume, 0, len(c.state.Disks))
	for _, d := range c.state.Disks {
		if d.Whose.Text == "" && d.Op != opReclaiming && d.Op != opEjecting {
			before = append(before, d.Volume)
		}
	}
	c.enqueue(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
		defer cancel()
		start := time.Now()
		vs, lerr := c.d.Engine.List(ctx)
		mem, merr := c.d.Engine.Memory(ctx)
		us := map[string]measured{}
		marks := map[string]bool{}
		keptNow := map[string]bool{}
		facts := map[string]diskFacts{}
		for _, v := range vs {
			keptNow[v.Name] = disks != nil && disks.Kept(v)
			if all || !known[v.Name] {
				u, err := c.d.Engine.Usage(ctx, v)
				us[v.Name] = measured{u, err}
			}
			if disks != nil {
				marks[v.Name] = disks.Unsaved(v)
			}
			facts[v.Name] = factsOf(disks, v)
		}
		var notices []ramdisk.Said
		if disks != nil {
			notices = disks.Notices()
		}
		lost := goneHow(ctx, disks, before, vs, lerr)
		s, serr := c.d.Store.Load()
		cost := time.Since(start)
		c.refreshCost.Store(int64(cost))
		c.post(func() {
			c.refreshing = false
			if all {
				c.lastUsage = start
			}
			c.applyRefresh(vs, lerr, mem, merr, us, marks, keptNow, lost)
			for i := range c.state.Disks {
				facts[c.state.Disks[i].Volume.Name].apply(&c.state.Disks[i])
			}
			c.state.Notices = notices
			// Settings read before a change made here was saved are stale.
			if serr == nil && gen == c.settingsGen {
				c.state.Settings = s
			}
		})
	})
}

func (c *Controller) applyRefresh(vs []ramdisk.Volume, lerr error, mem ramdisk.Memory, merr error, us map[string]measured, marks, kept, lost map[string]bool) {
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
		if d.Whose.Text != "" {
			// Another data folder's disk, or one no RAMBar made: its
			// maker speaks of it, not this app.
			continue
		}
		if l, told := lost[name]; told && !l {
			continue // ejected by a RAMBar of this data folder (the CLI, try, the agent)
		}
		c.notify(c.p.T("%s is gone", name), c.p.T("It was ejected outside RAMBar or lost (sleep, a crash of its helper); what it held is gone."))
	}
	sortDisks(disks)
	c.warnOnChange(c.state.Disks, disks, mem, merr)
	c.state.Disks, c.state.Now = disks, time.Now()
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
			c.notify(c.p.T("%s is nearly full", d.Volume.Name), c.p.T("%.0f%% of %s used; writes will fail when it is full.", 100*d.Usage.Fill(), c.p.Size(d.Volume.Size)))
		}
	}
	swapping := merr == nil && mem.Swapping()
	if swapping && !c.swapping && held > 0 {
		c.notify(c.p.T("Swapping while RAM disks hold %s", c.p.Size(held)),
			c.p.T("This machine has %s in swap: RAM disk contents may now be on the SSD. Eject disks you do not need.", c.p.Size(mem.SwapUsed)))
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
