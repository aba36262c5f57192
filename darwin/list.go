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
		return ramdisk.HFSPlusCase
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
// diskutil info; RAMBar-made disk images missing from hdiutil info (attached
// with diskutil image) found through diskutil list and their marker; tmpfs
// mounts under the mount root from the mount table.
func (e *Engine) List(ctx context.Context) ([]ramdisk.Volume, error) {
	var out []ramdisk.Volume
	mounts := map[string]mountEntry{}
	mres, merr := e.run(ctx, "mount")
	if merr == nil {
		for _, m := range parseMount(mres.Stdout) {
			mounts[m.MountPoint] = m
		}
	}
	ims, ierr := e.images(ctx)
	known := map[string]bool{} // devices that belong to some image
	for _, im := range ims {
		for _, en := range im.Entities {
			known[strings.TrimPrefix(en.Dev, "/dev/")] = true
		}
	}
	for _, im := range ims {
		if !im.IsRAM() {
			continue
		}
		en, ok := im.Mounted()
		if !ok {
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
			Size: ramdisk.Size(im.Size()), HelperPID: im.HelperPID, Managed: hasMarker(mp)}
		if v.Size == 0 {
			v.Size = ramdisk.Size(d.Capacity())
		}
		if v.Name == "" {
			v.Name = filepath.Base(mp)
		}
		if v.HelperPID == 0 {
			v.Notes = append(v.Notes, noHelperNote)
		}
		out = append(out, e.finish(v, d, mounts))
	}
	// Disk images hdiutil does not report: only RAMBar's own (the marker says
	// so), since nothing known tells a diskutil-attached ram:// disk from a .dmg.
	lres, lerr := e.run(ctx, "diskutil", "list", "-plist")
	if lerr == nil {
		if l, err := parseList(lres.Stdout); err == nil {
			ids := l.Mounted()
			keys := make([]string, 0, len(ids))
			for id := range ids {
				keys = append(keys, id)
			}
			sort.Strings(keys)
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
					Size: ramdisk.Size(d.Capacity()), Managed: true, Notes: []string{noHelperNote}}
				if v.MountPoint == "" {
					v.MountPoint = mp
				}
				if mk, ok := readMarker(v.MountPoint); ok && mk.Size > 0 {
					v.Size = mk.Size
				}
				out = append(out, e.finish(v, d, mounts))
			}
		}
	}
	if ierr != nil && lerr != nil {
		return nil, errors.Join(ierr, fmt.Errorf("diskutil list: %w", toolErr(lerr)))
	}
	if merr == nil {
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
			if st, err := e.statfs(m.MountPoint); err == nil && v.Size == 0 {
				v.Size = ramdisk.Size(st.Total)
			}
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].MountPoint < out[j].MountPoint
	})
	return out, nil
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
