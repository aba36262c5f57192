package cache

import (
	"path/filepath"
	"strings"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Caches and Mirror disks, one rule: a Mirror disk's top folder and a
// mirrored folder are the user's folder, written back as they are, so
// RAMBar keeps its caches out of both. 'cache on' refuses a Mirror disk (its
// Caches folder would be written back into the folder) and a target inside
// a mirrored folder, or holding one (the write-back would take RAMBar's link
// for a change of the folder's and set it aside as a conflict). A disk that
// had caches and is made again as a Mirror disk gets none: its targets stay
// on their empty fallback folders until 'cache off'. RAMBar's own Caches
// folder on a kept disk is not contents either: it is never saved.

// mirrorDiskOf returns the folder the mounted disk v mirrors, "" when it
// is not a Mirror disk of this data folder's.
func (c *Caches) mirrorDiskOf(v ramdisk.Volume) string { return c.Disks.MirrorOf(v) }

// refuseMirrorDisk is the refusal to switch a target onto a Mirror disk.
func (c *Caches) refuseMirrorDisk(v ramdisk.Volume, target string) error {
	folder := c.mirrorDiskOf(v)
	if folder == "" {
		return nil
	}
	return i18n.Errorf("%w: %s: %s mirrors %s, whose contents it writes back, and a cache is kept out of the user's folders; use a plain or kept disk for caches",
		ErrRefused, target, v.Name, folder)
}

// refuseMirrored is the refusal of a target inside a mirrored folder (or
// holding one).
func (c *Caches) refuseMirrored(target string) error {
	real := realPath(target)
	for _, f := range c.Disks.MirrorFolders() {
		for _, t := range []string{target, real} {
			for _, m := range []string{f, realPath(f)} {
				if t == m || strings.HasPrefix(t, m+"/") || strings.HasPrefix(m, t+"/") {
					return i18n.Errorf("%w: %s: it is inside a folder RAMBar mirrors (%s), or holds one, and the mirror's write-back would set RAMBar's link aside as a change of the folder's; "+
						"pick a folder outside it", ErrRefused, target, f)
				}
			}
		}
	}
	return nil
}

// realPath resolves the links in p's existing parents ("" parts kept).
func realPath(p string) string {
	dir, base := filepath.Split(filepath.Clean(p))
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		return filepath.Join(r, base)
	}
	return filepath.Clean(p)
}
