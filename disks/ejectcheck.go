package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rambar/i18n"
	"rambar/internal/record"
	"rambar/keeper"
	"rambar/ramdisk"
)

// ErrStillMounted marks an eject the mount table does not agree with: a
// mount of the disk (its mount point, a cover over its Mirror folder, a
// bind of it) or its folder's hidden copy is still there.
var ErrStillMounted = i18n.New("still mounted")

// LeftMount is one mount an eject left behind, and what it is.
type LeftMount struct {
	Point string
	What  string
}

// StillMountedError is an eject after which mounts remain: it never says
// "Ejected". DiskLeft is whether a mount of the disk itself remains (else
// only its folder's hidden copy); Settles, whether the in-place record
// remains, so the next eject, save or create of the name finishes it.
type StillMountedError struct {
	Name     string
	Left     []LeftMount
	DiskLeft bool
	Settles  bool
}

// Error names what is left and what to do.
func (e *StillMountedError) Error() string {
	var at, points []string
	for _, l := range e.Left {
		at = append(at, fmt.Sprintf("%s (%s)", l.Point, l.What))
		points = append(points, l.Point)
	}
	n := quoteArg(e.Name)
	switch {
	case !e.DiskLeft:
		return fmt.Sprintf("%s was ejected, but is not gone whole: still mounted: %s; 'rambar eject %s' or 'rambar create %s' removes it "+
			"(the folder itself is untouched; 'rambar doctor' lists what is left)", e.Name, strings.Join(at, ", "), n, n)
	case e.Settles:
		return fmt.Sprintf("not ejected: %s is still mounted at %s; 'rambar eject %s' again settles it "+
			"('rambar doctor' lists what is left)", e.Name, strings.Join(at, ", "), n)
	}
	return fmt.Sprintf("not ejected: %s is still mounted at %s; what was written there since its last save may be nowhere else: "+
		"copy out what you need, then unmount it: umount -l %s ('rambar doctor' lists what is left)", e.Name, strings.Join(at, ", "), strings.Join(points, " "))
}

// Is makes a StillMountedError an ErrStillMounted.
func (e *StillMountedError) Is(target error) bool { return target == ErrStillMounted }

// forgetEjected forgets what was kept about a disk that is gone: its
// caches' link, its record as this data folder's, a restore it did not
// finish, and its Mirror folder's claim.
func (s *Service) forgetEjected(v ramdisk.Volume, local string, incomplete bool) {
	s.Caches().Gone(v)
	s.forgetMade(v, local)
	if incomplete {
		s.restored(v.Name) // the partial disk is gone; its saved copy is whole
	}
	if k, err := s.Keeper(); err == nil {
		k.Release(v.Name)
	}
}

// traceMounts lists every mount of v before its eject (an engine that
// cannot tell gives none: its List is asked afterwards).
func (s *Service) traceMounts(ctx context.Context, v ramdisk.Volume) []ramdisk.Mount {
	if mt, ok := s.Engine.(ramdisk.MountTracer); ok {
		if ms, err := mt.MountsOf(ctx, v); err == nil {
			return ms
		}
	}
	return nil
}

// mountsLeft checks the mount table after v was ejected: no mount of it
// (before: what traceMounts found), and no hidden copy of its Mirror folder
// in place. place is its in-place record (inPlace: it had one). It returns a
// *StillMountedError naming what is left, or nil when the table agrees.
func (s *Service) mountsLeft(ctx context.Context, v ramdisk.Volume, before []ramdisk.Mount, place inPlaceRecord, inPlace bool) error {
	ctx = context.WithoutCancel(ctx)
	e := &StillMountedError{Name: v.Name}
	if mt, ok := s.Engine.(ramdisk.MountTracer); ok && len(before) > 0 {
		left, err := mt.StillMounted(ctx, before)
		if err != nil {
			e.Left = append(e.Left, LeftMount{Point: v.MountPoint, What: "the mount table cannot be read: " + err.Error()})
		}
		seen := map[ramdisk.Mount]bool{}
		for _, m := range left {
			if !seen[m] {
				seen[m] = true
				e.Left = append(e.Left, LeftMount{Point: m.Point, What: mountWhat(v, m.Point, place, inPlace)})
			}
		}
	} else if vs, err := s.Engine.List(ctx); err == nil {
		for _, o := range vs {
			if o.MountPoint == v.MountPoint && s.SameName(o.Name, v.Name) && (o.Identity == "" || v.Identity == "" || o.Identity == v.Identity) {
				e.Left = append(e.Left, LeftMount{Point: o.MountPoint, What: "its mount point"})
			}
		}
	}
	e.DiskLeft = len(e.Left) > 0
	if ip, err := s.inPlacer(); err == nil && s.Paths.Data != "" {
		if hidden := s.hiddenLeft(ip, v.Name); hidden != "" {
			what := "the hidden copy of a Mirror folder"
			if inPlace {
				what = "the hidden copy of its Mirror folder " + place.Folder
			}
			e.Left = append(e.Left, LeftMount{Point: hidden, What: what})
		}
	}
	if len(e.Left) == 0 {
		return nil
	}
	_, e.Settles = s.readInPlace(v.Name)
	return e
}

// mountWhat says what a mount of v left at point is.
func mountWhat(v ramdisk.Volume, point string, place inPlaceRecord, inPlace bool) string {
	switch p := filepath.Clean(point); {
	case p == filepath.Clean(v.MountPoint):
		return "its mount point"
	case inPlace && p == place.Folder:
		return "over its Mirror folder"
	}
	return "a bind of it"
}

// Settle finishes, under its lock, what an eject, create or save left of a
// disk in place that is not listed (its in-place record says what): a disk
// still covering its folder is mounted at its own mount point again, so it
// is listed and can be written back and ejected; a disk that is gone leaves
// its folder, and its hidden copy and record are removed (a hidden copy
// with no record too: unhideLost). settled is false when there was nothing
// to settle.
func (s *Service) Settle(ctx context.Context, name string) (settled bool, err error) {
	ip, err := s.inPlacer()
	if err != nil || s.Paths.Data == "" {
		return false, nil
	}
	if _, ok := s.readInPlace(name); !ok && s.hiddenLeft(ip, name) == "" {
		return false, nil
	}
	release, err := s.lock(ctx, name, "settling")
	if err != nil {
		return false, err
	}
	defer release()
	if err := s.settleInPlace(ctx, name); err != nil {
		return true, fmt.Errorf("settle %s: %w", name, err)
	}
	return true, nil
}

// LeftMounted is a Leftover kind: a mount an eject left that RAMBar
// cannot settle on its own (its record is gone); doctor lists it with what
// to do.
const LeftMounted LeftoverKind = "mount"

// leftMounts lists the mounts RAMBar cannot settle: a hidden copy in
// DATA/inplace with no readable record, and a Mirror folder with something
// mounted over it while no disk of this data folder is listed there and no
// in-place record says which (a cover whose disk lost its own mount point).
func (s *Service) leftMounts(ctx context.Context, vs []ramdisk.Volume) []Leftover {
	if s.Paths.Data == "" {
		return nil
	}
	var out []Leftover
	ents, _ := os.ReadDir(filepath.Join(s.Paths.Data, "inplace"))
	recorded := map[string]bool{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.Paths.Data, "inplace", e.Name())
		if r, ok := s.recordAt(dir); ok {
			recorded[r.Folder] = true
			continue
		}
		if s.mountedAt(dir) {
			out = append(out, Leftover{Kind: LeftMounted, Name: e.Name(), Path: dir}.
				Advised("the hidden copy of a Mirror folder in place (a private bind in RAMBar's data folder) with no readable record; "+
					"removing it leaves the folder untouched: the next create or eject of that name removes it, or: umount -l %s", dir))
		}
	}
	for _, folder := range s.mirrorFolders() {
		if recorded[folder] || !s.mountedAt(folder) || coveredByListed(ctx, s, vs, folder) {
			continue
		}
		out = append(out, Leftover{Kind: LeftMounted, Path: folder}.
			Advised("something is mounted over this Mirror folder and no disk RAMBar lists covers it (a disk in place that lost its own "+
				"mount point and its record?): what was written there may not be in the folder beneath; copy out what you need, then: umount -l %s", folder))
	}
	return out
}

// mountedAt reports whether something is mounted at dir: by the engine's
// mount table (a bind of a folder on the same file system has no device
// of its own), else by its device.
func (s *Service) mountedAt(dir string) bool {
	if ip, err := s.inPlacer(); err == nil {
		return ip.FolderHidden(dir)
	}
	return ramdisk.IsMountPoint(dir)
}

// recordAt is the readable in-place record whose hidden copy is dir.
func (s *Service) recordAt(dir string) (inPlaceRecord, bool) {
	var r inPlaceRecord
	if record.ReadJSON(dir+".json", record.MaxSize, &r) != nil || ramdisk.ValidateName(r.Name) != nil || !slices.Contains(s.hiddenDirs(r.Name), dir) {
		return inPlaceRecord{}, false
	}
	return s.readInPlace(r.Name)
}

// mirrorFolders are the folders this data folder's disks mirror.
func (s *Service) mirrorFolders() []string {
	k, err := s.Keeper()
	if err != nil {
		return nil
	}
	return k.MirrorFolders()
}

// coveredByListed reports whether a listed disk is what is mounted over folder.
func coveredByListed(ctx context.Context, s *Service, vs []ramdisk.Volume, folder string) bool {
	ip, err := s.inPlacer()
	if err != nil {
		return true // an engine that cannot tell: nothing to say
	}
	return slices.ContainsFunc(vs, func(v ramdisk.Volume) bool {
		return filepath.Clean(v.MountPoint) == folder || ip.Covers(ctx, v, folder)
	})
}

// unhideLost removes the hidden copy of name's folder when no record
// names it and no disk of that name is listed: it is a bind of the
// folder in RAMBar's data folder, and removing it leaves the folder as it
// is.
func (s *Service) unhideLost(ctx context.Context, name string) error {
	ip, err := s.inPlacer()
	if err != nil || s.Paths.Data == "" {
		return nil
	}
	hidden := s.hiddenLeft(ip, name)
	if _, ok := s.readInPlace(name); ok || hidden == "" {
		return nil
	}
	if _, err := s.Find(ctx, name); !errors.Is(err, ramdisk.ErrNotFound) {
		return nil
	}
	if err := ip.UnhideFolder(ctx, hidden); err != nil {
		return fmt.Errorf("remove the hidden copy %s left of %s: %w", hidden, name, err)
	}
	return nil
}

// busyWithMounts names what keeps disk v busy when something is mounted
// inside it (a bind of a project, a USB stick): no program holds it then,
// the mount does, and closing programs would not help. The error is still
// the engine's ErrBusy.
func busyWithMounts(err error, v ramdisk.Volume) error {
	if !errors.Is(err, ramdisk.ErrBusy) {
		return err
	}
	if me, ok := errors.AsType[*keeper.MountError](keeper.RefuseMounts("eject", v.Name, v.MountPoint)); ok {
		return &mountedInside{mount: me, busy: err}
	}
	return err
}

// mountedInside is an eject refused for a mount inside the disk.
type mountedInside struct {
	mount *keeper.MountError
	busy  error
}

func (e *mountedInside) Error() string {
	return fmt.Sprintf("not ejected: %v, or eject with --force, which unmounts it with the disk (its files stay where they are)", e.mount)
}

// Unwrap gives the mount and the engine's busy error.
func (e *mountedInside) Unwrap() []error { return []error{e.mount, e.busy} }
