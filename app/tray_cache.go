package main

import (
	"context"

	"rambar/cache"
	"rambar/disks"
	"rambar/tray"
)

// trayCaches is the menu's "Use for…": the same use cases as 'rambar cache'.
type trayCaches struct{ s *disks.Service }

func (c trayCaches) CacheTargets() []tray.CacheTarget {
	var out []tray.CacheTarget
	for _, k := range c.s.Caches().Choices(knownCaches()) {
		out = append(out, tray.CacheTarget{Key: k.Key, Label: k.Label, Path: k.Path, Gain: k.Gain, OnDisk: k.OnDisk})
	}
	return out
}

func (c trayCaches) CacheOn(ctx context.Context, disk, key string) error {
	t, err := cache.ResolveTarget(key, knownCaches())
	if err != nil {
		return err
	}
	_, err = c.s.Caches().On(ctx, disk, t, false)
	return err
}

func (c trayCaches) CacheOff(ctx context.Context, key string) error {
	t, err := cache.ResolveTarget(key, knownCaches())
	if err != nil {
		return err
	}
	return c.s.Caches().Off(ctx, t.Path)
}

func (c trayCaches) RepairCaches(ctx context.Context) []error { return c.s.Caches().Repair(ctx) }
