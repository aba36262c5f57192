package tray

import (
	"context"
	"strings"
)

// CacheTarget is one cache folder the "Use for…" submenu offers.
type CacheTarget struct {
	Key   string // what CacheOn takes
	Label string // "Go build cache"
	Path  string
	Gain  string // what to expect, plainly
	// OnDisk names the disk it is on now, "" when it is on none.
	OnDisk string
}

// Caches switches cache folders onto RAM disks through the use-case layer,
// the same as 'rambar cache' (app wires *disks.Service to it).
type Caches interface {
	// CacheTargets lists the known targets and where each is; called on
	// every menu build, so it must be cheap (it reads RAMBar's own files).
	CacheTargets() []CacheTarget
	// CacheOn switches the target onto the mounted disk.
	CacheOn(ctx context.Context, disk, key string) error
	// CacheOff puts the target back as it was.
	CacheOff(ctx context.Context, key string) error
	// RepairCaches points the caches of disks that went (Finder's eject, a
	// lost disk) at their empty folders.
	RepairCaches(ctx context.Context) []error
}

// cacheItem is a disk's "Use for…" submenu: each known target, ticked when
// it is on this disk, disabled when it is on another.
func cacheItem(s menuState, d diskState) (Item, bool) {
	if !s.Features.Caches || len(s.Caches) == 0 {
		return Item{}, false
	}
	name := d.Volume.Name
	key := "disk/" + name + "/cache"
	var sub []Item
	for _, t := range s.Caches {
		title := s.P.T(t.Label)
		if name, ok := strings.CutSuffix(t.Label, " cache"); ok && t.Key == t.Path { // an app's cache folder, by its name
			title = s.P.T("%s cache", name)
		}
		it := Item{Key: key + "/" + t.Key, Title: title, Checkbox: true, Tooltip: t.Path + ": " + s.P.T(t.Gain),
			action: action{Kind: actCacheToggle, Disk: name, Text: t.Key}}
		switch {
		case s.Caps.SameName(t.OnDisk, name):
			it.Checked = true
		case t.OnDisk != "":
			it.Disabled, it.Tooltip = true, s.P.T("on %s now", t.OnDisk)
		}
		sub = append(sub, it)
	}
	sub = append(sub, Item{Key: key + "/note", Title: s.P.T("Measure first: rambar try -- COMMAND"), Disabled: true})
	return Item{Key: key, Title: s.P.T("Use for…"), Tooltip: s.P.T("Put a cache folder on this disk; it falls back to an empty folder when the disk is ejected"),
		Children: sub}, true
}

// cacheTargets reads the targets for the next menu build.
func (c *Controller) cacheTargets() []CacheTarget {
	if c.d.Caches == nil {
		return nil
	}
	return c.d.Caches.CacheTargets()
}

// toggleCache switches a target on this disk, or off when it is on it.
func (c *Controller) toggleCache(d *diskState, key string) {
	name, on := d.Volume.Name, false
	for _, t := range c.state.Caches {
		if t.Key == key && c.state.Caps.SameName(t.OnDisk, name) {
			on = true
		}
	}
	c.goJob(func(ctx context.Context) {
		var err error
		if on {
			err = c.d.Caches.CacheOff(ctx, key)
		} else {
			err = c.d.Caches.CacheOn(ctx, name, key)
		}
		c.post(func() {
			switch {
			case err != nil:
				c.notify(c.p.T("Can't switch %s", key), short(c.p, err))
			case on:
				c.notify(c.p.T("%s is back", key), c.p.T("Its folder has its old contents again."))
			default:
				c.notify(c.p.T("%s is on %s", key, name), c.p.T("It falls back to an empty folder when %s is ejected.", name))
			}
			c.render()
		})
	})
}

// repairIfGone repairs the caches when a disk left the list without the
// menu ejecting it, so no cache keeps pointing at it.
func (c *Controller) repairIfGone(before, after []diskState) {
	if c.d.Caches == nil {
		return
	}
	still := map[string]bool{}
	for _, d := range after {
		still[d.Volume.Name] = true
	}
	for _, d := range before {
		if !still[d.Volume.Name] {
			c.goJob(func(ctx context.Context) {
				for _, err := range c.d.Caches.RepairCaches(ctx) {
					c.d.Logf("repair caches: %v", err)
				}
			})
			return
		}
	}
}
