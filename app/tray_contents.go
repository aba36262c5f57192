//go:build cgo || !darwin

package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"rambar/mirror"
	"rambar/ramdisk"
	"rambar/tray"
)

// autosaveTick is how often the tray looks for kept disks whose own
// interval (--save-every, a preset's save interval) has passed.
const autosaveTick = 30 * time.Second

// dirtyEvery is how long an "unsaved changes" answer is reused: finding it
// walks the disk's metadata, too much for every 2-second refresh of a
// large disk.
const dirtyEvery = 15 * time.Second

// contents wires kept and mirrored disks into the tray: Save Now with
// progress, the unsaved mark, Reclaim, autosave, a save before sleep and one
// at quit.
type contents struct {
	a *App
	k *mirror.Keeper

	mu    sync.Mutex
	dirty map[string]dirtyMark
}

type dirtyMark struct {
	at    time.Time
	dirty bool
}

// newContents returns nil when there is no data folder (no HOME).
func (a *App) newContents() *contents {
	k, err := a.keeper()
	if err != nil {
		return nil
	}
	return &contents{a: a, k: k, dirty: map[string]dirtyMark{}}
}

// hook sets the tray's contents hooks.
func (c *contents) hook(d *tray.Deps) {
	d.SaveNow = c.save
	d.Kept = c.kept
	d.Unsaved = c.unsaved
	d.Reclaim = c.reclaim
}

func mirrorProgress(p tray.ProgressFunc) mirror.ProgressFunc {
	return func(m mirror.Progress) {
		if m.BytesTotal > 0 {
			p(m.BytesDone, m.BytesTotal)
		} else {
			p(int64(m.FilesDone), int64(m.FilesTotal))
		}
	}
}

func (c *contents) save(ctx context.Context, v ramdisk.Volume, p tray.ProgressFunc) error {
	_, err := c.k.Save(ctx, v, mirror.SaveOptions{Progress: mirrorProgress(p)})
	c.forget(v.Name)
	return err
}

// kept tells kept and mirrored disks (Save Now applies) from plain ones.
func (c *contents) kept(v ramdisk.Volume) bool {
	_, err := c.k.State(v.Name)
	return err == nil
}

// unsaved is the menu's "•" mark: only kept and mirrored disks have one.
func (c *contents) unsaved(v ramdisk.Volume) bool {
	if !c.kept(v) {
		return false
	}
	c.mu.Lock()
	m, ok := c.dirty[v.Name]
	c.mu.Unlock()
	if ok && time.Since(m.at) < dirtyEvery {
		return m.dirty
	}
	d, err := c.k.Dirty(v)
	if err != nil {
		return false
	}
	c.mu.Lock()
	c.dirty[v.Name] = dirtyMark{time.Now(), d}
	c.mu.Unlock()
	return d
}

func (c *contents) forget(name string) {
	c.mu.Lock()
	delete(c.dirty, name)
	c.mu.Unlock()
}

func (c *contents) reclaim(ctx context.Context, v ramdisk.Volume, p tray.ProgressFunc) (ramdisk.Size, error) {
	e, err := c.a.Engine()
	if err != nil {
		return 0, err
	}
	u, err := e.Usage(ctx, v)
	if err != nil {
		return 0, err
	}
	plan, err := c.a.replanFor(ctx, v, u)
	if err != nil {
		return 0, err
	}
	res, err := c.k.Reclaim(ctx, e, v, plan, mirrorProgress(p))
	c.forget(v.Name)
	if err != nil {
		return 0, err
	}
	return res.Before.Held - res.After.Held, nil
}

// saveAll saves every kept or mirrored disk with unsaved changes, notifying
// failures: before sleep and when the app quits leaving disks mounted.
func (c *contents) saveAll(ctx context.Context, notify func(title, text string) error) {
	e, err := c.a.Engine()
	if err != nil {
		return
	}
	vs, err := e.List(ctx)
	if err != nil {
		return
	}
	c.k.SaveAll(ctx, vs, mirror.SaveOptions{}, func(name string, _ mirror.Result, err error) {
		c.forget(name)
		if err != nil {
			notify("Could not save "+name, err.Error())
		}
	})
}

// background runs autosave and the save before sleep until ctx ends.
// Disks without a save interval are not autosaved.
func (c *contents) background(ctx context.Context, notify func(title, text string) error) {
	e, err := c.a.Engine()
	if err != nil {
		return
	}
	autosaved := func(ctx context.Context) ([]ramdisk.Volume, error) {
		vs, err := e.List(ctx)
		var due []ramdisk.Volume
		for _, v := range vs {
			if st, err := c.k.State(v.Name); err == nil && st.SaveEvery > 0 {
				due = append(due, v)
			}
		}
		return due, err
	}
	go c.k.Autosave(ctx, autosaveTick, autosaved, func(name string, _ mirror.Result, err error) {
		c.forget(name)
		if err != nil {
			notify("Could not save "+name, err.Error())
		}
	})
	go func() {
		err := mirror.WatchSleep(ctx, func(ctx context.Context) { c.saveAll(ctx, notify) })
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, ramdisk.ErrUnsupported) && c.a.Getenv("RAMBAR_DEBUG") != "" {
			c.a.Stderr.Write([]byte("rambar: " + err.Error() + "\n"))
		}
	}()
}
