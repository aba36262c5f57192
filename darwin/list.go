package darwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rambar/ramdisk"
)

// images reads hdiutil info -plist.
func (e *Engine) images(ctx context.Context) ([]hdImage, error) {
	res, err := e.run(ctx, "hdiutil", "info", "-plist")
	if err != nil {
		return nil, fmt.Errorf("hdiutil info: %w", toolErr(err))
	}
	return parseInfoPlist(res.Stdout)
}

// imageFor finds the attached ram:// image whose whole disk is dev.
func (e *Engine) imageFor(ctx context.Context, dev string) (hdImage, bool) {
	ims, err := e.images(ctx)
	if err != nil {
		return hdImage{}, false
	}
	for _, im := range ims {
		if im.IsRAM() && im.Device() == dev {
			return im, true
		}
	}
	return hdImage{}, false
}

// fsOf maps diskutil's description onto a FileSystem.
func fsOf(d diskInfoPlist) ramdisk.FileSystem {
	cs := d.CaseSensitive()
	switch {
	case d.IsAPFS() && cs:
		return ramdisk.APFSCase
	case d.IsAPFS():
		return ramdisk.APFS
	case cs:
		return ramdisk.HFSPlusCase // journaled or not: RAMBar has one case-sensitive HFS+
	case d.Journaled():
		return ramdisk.JHFSPlus
	}
	return ramdisk.HFSPlus
}

func devPath(id string) string {
	if id == "" || strings.HasPrefix(id, "/dev/") {
		return id
	}
	return "/dev/" + id
}

func hasMarker(mp string) bool {
	_, err := os.Lstat(filepath.Join(mp, markerFile))
	return err == nil
}

// List implements ramdisk.Engine: ram:// images from hdiutil info joined with
// diskutil info, including images attached but not mounted (they keep their
// memory until ejected); RAMBar-made disk images missing from hdiutil info
// (attached with diskutil image) found through diskutil list and their
// marker; tmpfs mounts under the mount root from the mount table.
func (e *Engine) List(ctx context.Context) ([]ramdisk.Volume, error) {
	mounts := map[string]mountEntry{}
	mres, merr := e.run(ctx, "mount")
	if merr == nil {
		for _, m := range parseMount(mres.Stdout) {
			mounts[m.MountPoint] = m
		}
	}
	ims, ierr := e.images(ctx)
	out, err := e.listImages(ctx, ims, mounts)
	if err != nil {
		return nil, err
	}
	unreported, lerr := e.listUnreported(ctx, ims, mounts)
	if ierr != nil && lerr != nil {
		return nil, errors.Join(ierr, lerr)
	}
	out = append(out, unreported...)
	if merr == nil {
		out = append(out, e.listTmpfs(mounts)...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].MountPoint < out[j].MountPoint
	})
	return out, nil
}

// listImages turns hdiutil's ram:// images into volumes.
func (e *Engine) listImages(ctx context.Context, ims []hdImage, mounts map[string]mountEntry) ([]ramdisk.Volume, error) {
	var out []ramdisk.Volume
	for _, im := range ims {
		if !im.IsRAM() || im.Device() == "" {
			continue
		}
		en, ok := im.Mounted()
		if !ok {
			out = append(out, e.unmounted(ctx, im))
			continue
		}
		d, err := e.diskInfo(ctx, en.Dev)
		if err != nil {
			if errors.Is(err, errNoDisk) {
				continue // gone while listing
			}
			return nil, err
		}
		mp := d.MountPoint
		if mp == "" {
			mp = en.MountPoint
		}
		v := ramdisk.Volume{Name: d.VolumeName, MountPoint: mp, Device: im.Device(), FS: fsOf(d),
			Size: ramdisk.Size(im.Size()), HelperPID: im.HelperPID, Managed: hasMarker(mp), Identity: d.Identity()}
		if v.Size == 0 {
			v.Size = ramdisk.Size(d.Capacity())
		}
		if v.Name == "" {
			v.Name = filepath.Base(mp)
		}
		if v.HelperPID == 0 {
			v.Notes = append(v.Notes, ramdisk.Sayf(noHelperNote))
		}
		out = append(out, e.finish(v, d, mounts))
	}
	return out, nil
}

// unmountedNote is said of a ram:// image that is attached but not mounted.
const unmountedNote = "attached but not mounted: it keeps its memory until it is ejected"

// unmounted describes a ram:// image with nothing mounted (Disk Utility's
// Unmount, an eject that unmounted but could not detach): named by its
// device, so it can be ejected, with its size and helper; its file system as
// far as diskutil still tells it ("" when unformatted or unknown).
func (e *Engine) unmounted(ctx context.Context, im hdImage) ramdisk.Volume {
	dev := im.Device()
	v := ramdisk.Volume{Name: strings.TrimPrefix(dev, "/dev/"), Device: dev, Size: ramdisk.Size(im.Size()),
		HelperPID: im.HelperPID, Notes: []ramdisk.Said{ramdisk.Sayf(unmountedNote)}}
	target := dev
	for _, en := range im.Entities {
		if strings.EqualFold(en.Hint, apfsVolumeHint) {
			target = en.Dev // an APFS volume still describes its file system
		}
	}
	if d, err := e.diskInfo(ctx, target); err == nil && (d.IsAPFS() || strings.EqualFold(d.FilesystemType, "hfs")) {
		v.FS = fsOf(d)
	}
	v.Allocation = ramdisk.AllocationFor(ramdisk.APFS, v.Size) // the disk image rule, whatever is on it
	if v.HelperPID == 0 {
		v.Notes = append(v.Notes, ramdisk.Sayf(noHelperNote))
	}
	return v
}

// apfsVolumeHint is the content hint of an APFS volume ("APFS" in ASCII).
const apfsVolumeHint = "41504653-0000-11AA-AA11-00306543ECAC"

// listUnreported finds disk images hdiutil does not report: only RAMBar's
// own (the marker says so), since nothing known tells a diskutil-attached
// ram:// disk from a .dmg.
func (e *Engine) listUnreported(ctx context.Context, ims []hdImage, mounts map[string]mountEntry) ([]ramdisk.Volume, error) {
	known := map[string]bool{} // devices that belong to some image
	for _, im := range ims {
		for _, en := range im.Entities {
			known[strings.TrimPrefix(en.Dev, "/dev/")] = true
		}
	}
	lres, err := e.run(ctx, "diskutil", "list", "-plist")
	if err != nil {
		return nil, fmt.Errorf("diskutil list: %w", toolErr(err))
	}
	l, err := parseList(lres.Stdout)
	if err != nil {
		return nil, nil
	}
	ids := l.Mounted()
	keys := make([]string, 0, len(ids))
	for id := range ids {
		keys = append(keys, id)
	}
	sort.Strings(keys)
	var out []ramdisk.Volume
	for _, id := range keys {
		mp := ids[id]
		if known[id] || !hasMarker(mp) {
			continue
		}
		d, err := e.diskInfo(ctx, id)
		if err != nil || !d.IsDiskImage() {
			continue
		}
		dev := devPath(d.ParentWholeDisk)
		if st := d.Stores(); d.IsAPFS() && len(st) > 0 {
			dev = devPath(st[0])
		}
		v := ramdisk.Volume{Name: d.VolumeName, MountPoint: d.MountPoint, Device: dev, FS: fsOf(d),
			Size: ramdisk.Size(d.Capacity()), Managed: true, Notes: []ramdisk.Said{ramdisk.Sayf(noHelperNote)}, Identity: d.Identity()}
		if v.MountPoint == "" {
			v.MountPoint = mp
		}
		if mk, ok := readMarker(v.MountPoint); ok && mk.Size > 0 {
			v.Size = mk.Size
		}
		out = append(out, e.finish(v, d, mounts))
	}
	return out, nil
}

// listTmpfs lists the tmpfs mounts under the mount root or with RAMBar's
// marker.
func (e *Engine) listTmpfs(mounts map[string]mountEntry) []ramdisk.Volume {
	var out []ramdisk.Volume
	for _, m := range mounts {
		if m.FSType != "tmpfs" || (filepath.Dir(m.MountPoint) != filepath.Clean(e.mountRoot) && !hasMarker(m.MountPoint)) {
			continue
		}
		v := ramdisk.Volume{Name: filepath.Base(m.MountPoint), MountPoint: m.MountPoint, Device: m.Source,
			FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite, Managed: hasMarker(m.MountPoint)}
		if mk, ok := readMarker(m.MountPoint); ok {
			v.Size = mk.Size
			if mk.Name != "" {
				v.Name = mk.Name
			}
		}
		if st, err := e.statfs(m.MountPoint); err == nil && st.Total > 0 {
			v.Size = ramdisk.Size(st.Total) // the real size (mount_tmpfs caps it silently)
		}
		out = append(out, v)
	}
	return out
}

// finish fills what every disk image volume shares.
func (e *Engine) finish(v ramdisk.Volume, d diskInfoPlist, mounts map[string]mountEntry) ramdisk.Volume {
	v.Allocation = ramdisk.AllocationFor(v.FS, v.Size)
	if m, ok := mounts[v.MountPoint]; ok {
		for _, o := range m.Options {
			if o == "nobrowse" {
				v.Hidden = true
			}
		}
	}
	v.Notes = append(v.Notes, ownershipNotes(d)...)
	return v
}

func readMarker(mp string) (marker, bool) {
	b, err := os.ReadFile(filepath.Join(mp, markerFile))
	if err != nil {
		return marker{}, false
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil {
		return marker{}, false
	}
	return m, true
}
