package disks

import (
	"context"

	"rambar/cache"
	"rambar/ramdisk"
)

// Caches are the cache folders switched onto this RAMBar's disks (package
// cache), under each disk's lock.
func (s *Service) Caches() *cache.Caches {
	return &cache.Caches{Data: s.Paths.Data, Disks: cacheDisks{s}, Step: s.cacheStep}
}

// cacheDisks is what the caches need of the use cases.
type cacheDisks struct{ s *Service }

func (d cacheDisks) List(ctx context.Context) ([]ramdisk.Volume, error) { return d.s.Engine.List(ctx) }
func (d cacheDisks) Find(ctx context.Context, n string) (ramdisk.Volume, error) {
	return d.s.Find(ctx, n)
}
func (d cacheDisks) Lock(ctx context.Context, name, doing string) (func(), error) {
	return d.s.lock(ctx, name, doing)
}
func (d cacheDisks) SameName(a, b string) bool { return d.s.SameName(a, b) }
func (d cacheDisks) Caps() ramdisk.Caps        { return d.s.Engine.Caps() }
func (d cacheDisks) MirrorFolders() []string   { return d.s.mirrorFolders() }
func (d cacheDisks) DropMountPoint(ctx context.Context, name string) {
	if e, ok := d.s.Engine.(ramdisk.MountPointDropper); ok {
		e.DropMountPoint(ctx, name)
	}
}

// MirrorOf returns the folder the mounted disk v mirrors, "" when it is not
// a Mirror disk of this data folder's (a Mirror disk's top folder is the
// folder's: no cache goes there).
func (d cacheDisks) MirrorOf(v ramdisk.Volume) string {
	k, st, err := d.s.keptState(v.Name)
	if err != nil || st.Mode != ramdisk.Mirror || !k.Holds(v, st) && !k.Incomplete(v) {
		return ""
	}
	return st.MirrorPath
}
