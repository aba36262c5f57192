package disks

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"rambar/i18n"
	"rambar/internal/record"
	"rambar/keeper"
	"rambar/ramdisk"
)

// In-place steps, as the record says them (doc.go: Mirror in place; each
// is written before it is taken, and settleInPlace ends a cut-short one).
const (
	ipHiding     = "hiding"     // the hidden copy is being made; no disk yet
	ipLoading    = "loading"    // the disk is being made and loaded
	ipCovering   = "covering"   // the disk is being mounted over the folder
	ipInPlace    = "in place"   // the disk covers the folder
	ipUncovering = "uncovering" // eject: written back, the disk leaving the folder
	ipEjecting   = "ejecting"   // eject: the folder uncovered, the disk being ejected
	ipUnhiding   = "unhiding"   // eject: the disk gone, the hidden copy being removed
)

// inPlaceRecord is what is kept about a disk in place.
type inPlaceRecord struct {
	Name   string `json:"name"`
	Folder string `json:"folder"`
	// Hidden is the folder's hidden copy, "" where the engine has none.
	Hidden string `json:"hidden,omitempty"`
	// Disk is the disk's own mount point, once it is made.
	Disk string `json:"disk,omitempty"`
	Step string `json:"step"`
}

// places is the journal of disks in place (internal/record).
func (s *Service) places() record.Log[inPlaceRecord] {
	return record.Log[inPlaceRecord]{Kind: s.kind("inplace", 0), Op: "in place",
		Key:   func(r *inPlaceRecord) string { return r.Name },
		Step:  func(r *inPlaceRecord) string { return r.Step },
		Heard: s.inPlaceStep}
}

// hiddenDirs are where the folder's hidden copy of disk name may be: its
// record's path without ".json" (where it is made: inPlaceKey), then under
// the key an older RAMBar used.
func (s *Service) hiddenDirs(name string) (dirs []string) {
	for _, k := range s.places().Names.Keys(name) {
		dirs = append(dirs, filepath.Join(s.places().Dir, k))
	}
	return dirs
}

func (s *Service) inPlaceKey(name string) string { return s.hiddenDirs(name)[0] }

// hiddenLeft is a hidden copy of disk name's folder that is there
// (mounted), never one whose record is another disk's; "" when none is.
func (s *Service) hiddenLeft(ip ramdisk.InPlacer, name string) string {
	for _, dir := range s.hiddenDirs(name) {
		if r, ok := s.recordAt(dir); (!ok || s.places().Names.Same(r.Name, name)) && ip.FolderHidden(dir) {
			return dir
		}
	}
	return ""
}

func (s *Service) writeInPlace(r inPlaceRecord) error {
	if err := s.places().Note(r); err != nil {
		return fmt.Errorf("in place %s: note the step %q: %w", r.Name, r.Step, err)
	}
	return nil
}

// readInPlace reads a disk's in-place record, bounded and checked: its
// hidden copy must be one this data folder names for the disk, its folder
// absolute. ok is false when there is none or it cannot be read.
func (s *Service) readInPlace(name string) (inPlaceRecord, bool) {
	r, _, ok := s.places().Get(name)
	if !ok || !s.places().Names.Same(r.Name, name) || !filepath.IsAbs(r.Folder) ||
		r.Hidden != "" && !slices.Contains(s.hiddenDirs(name), r.Hidden) || r.Disk != "" && filepath.Base(r.Disk) != r.Name {
		return inPlaceRecord{}, false
	}
	r.Folder = filepath.Clean(r.Folder)
	return r, true
}

// inPlacer is the engine's in-place side, or an error saying it has none.
func (s *Service) inPlacer() (ramdisk.InPlacer, error) {
	if ip, ok := s.Engine.(ramdisk.InPlacer); ok {
		return ip, nil
	}
	return nil, i18n.Errorf("%w: mirroring in place with this engine", ramdisk.ErrUnsupported)
}

// InPlace is the folder a mounted disk covers (Mirror in place), "" for
// none: list, info and the menu say "in place at FOLDER".
func (s *Service) InPlace(ctx context.Context, v ramdisk.Volume) string {
	if r, ok := s.readInPlace(v.Name); ok {
		if ip, err := s.inPlacer(); err == nil && ip.Covers(ctx, v, r.Folder) {
			return r.Folder
		}
	}
	return ""
}

// through is the Keeper's Through: the folder a Mirror disk in place is
// loaded from and written back to. Its hidden copy while there is one;
// else the folder's path, but only while no disk covers it (a write-back
// through the path would then write into the disk itself).
func (s *Service) through(st keeper.State) (string, error) {
	r, ok := s.readInPlace(st.Name)
	ip, err := s.inPlacer()
	if err != nil {
		return "", err
	}
	if ok && r.Folder == st.MirrorPath && r.Hidden != "" && ip.FolderHidden(r.Hidden) {
		return r.Hidden, nil
	}
	if v, err := s.Find(context.Background(), st.Name); err == nil && ip.Covers(context.Background(), v, st.MirrorPath) {
		// Not ErrRefused: an eject must stop here, not drop the disk unsaved.
		return "", fmt.Errorf("%s covers %s and the record of its hidden copy is gone, so the folder beneath cannot be reached "+
			"to write it back", st.Name, st.MirrorPath)
	}
	return "", nil
}

// hideFolder makes the folder's hidden copy before the disk is made, the
// record saying so first. The hidden copy is "" where the engine has none.
func (s *Service) hideFolder(ctx context.Context, name, folder string) (inPlaceRecord, error) {
	ip, err := s.inPlacer()
	if err != nil {
		return inPlaceRecord{}, err
	}
	r := inPlaceRecord{Name: name, Folder: folder, Hidden: s.inPlaceKey(name), Step: ipHiding}
	if err := s.writeInPlace(r); err != nil {
		return r, err
	}
	if err := ip.HideFolder(ctx, folder, r.Hidden); errors.Is(err, ramdisk.ErrUnsupported) {
		r.Hidden = ""
	} else if err != nil {
		s.places().Done(name)
		return r, err
	}
	r.Step = ipLoading
	return r, s.writeInPlace(r)
}

// unhide removes the hidden copy and the record (the disk is gone or was
// never made).
func (s *Service) unhide(ctx context.Context, r inPlaceRecord) error {
	if r.Hidden != "" {
		r.Step = ipUnhiding
		if err := s.writeInPlace(r); err != nil {
			return err
		}
		if ip, err := s.inPlacer(); err == nil {
			if err := ip.UnhideFolder(ctx, r.Hidden); err != nil {
				return err
			}
		}
	}
	s.places().Done(r.Name)
	return nil
}

// cover mounts the loaded disk over its folder, the record saying so
// before and after; it returns the disk as it is then.
func (s *Service) cover(ctx context.Context, v ramdisk.Volume, r inPlaceRecord) (ramdisk.Volume, error) {
	ip, err := s.inPlacer()
	if err != nil {
		return v, err
	}
	r.Step = ipCovering
	r.Disk = cmp.Or(r.Disk, v.MountPoint)
	if err := s.writeInPlace(r); err != nil {
		return v, err
	}
	if v, err = ip.Cover(ctx, v, r.Folder); err != nil {
		return v, err
	}
	r.Step = ipInPlace
	return v, s.writeInPlace(r)
}

// settleInPlace finishes or undoes what a stopped RAMBar left of a disk in
// place (its lock held): a disk still mounted ends covering its folder
// again, with a hidden copy where the engine makes one (a create stopped
// after the load is finished, an eject stopped before the disk went is
// undone); a disk that is gone (ejected, the machine restarted) leaves its
// folder showing its last write-back, and the hidden copy and record go.
// A disk whose load did not finish is left as the incomplete Mirror disk it
// is, not covering anything.
func (s *Service) settleInPlace(ctx context.Context, name string) error {
	r, ok := s.readInPlace(name)
	if !ok {
		if err := s.noteLostRecord(ctx, name); err != nil {
			return err
		}
		return s.unhideLost(ctx, name)
	}
	ip, err := s.inPlacer()
	if err != nil {
		return err
	}
	v, err := s.Find(ctx, name)
	if errors.Is(err, ramdisk.ErrNotFound) && r.Disk != "" {
		// Unmounted from its own mount point by hand, it may still cover
		// the folder: mount it there again rather than lose track of it.
		if again, rerr := ip.Reattach(ctx, r.Folder, r.Disk); rerr != nil {
			return fmt.Errorf("%s in place at %s: %w", name, r.Folder, rerr)
		} else if again {
			v, err = s.Find(ctx, name)
		}
	}
	if errors.Is(err, ramdisk.ErrNotFound) {
		return s.unhide(ctx, r)
	}
	if err != nil {
		return err
	}
	switch {
	case ip.Covers(ctx, v, r.Folder):
		s.remarkInPlace(v)
		if r.Step == ipInPlace {
			return nil
		}
	case s.Incomplete(v):
		return s.unhide(ctx, r)
	case r.Hidden != "" && !ip.FolderHidden(r.Hidden):
		if err := ip.HideFolder(ctx, r.Folder, r.Hidden); err != nil {
			return fmt.Errorf("%s in place at %s: %w", name, r.Folder, err)
		}
	}
	_, err = s.cover(ctx, v, r)
	return err
}

// saveKept saves v (savePinned). A disk in place whose folder has no hidden
// copy (macOS, or a copy lost) is first taken off its folder, saved and
// written back through the folder's path, then mounted over it again; a
// shell in the folder then keeps the save from running (a *BusyError).
func (s *Service) saveKept(ctx context.Context, k *keeper.Keeper, v ramdisk.Volume, o keeper.SaveOptions) (keeper.Result, error) {
	r, ok := s.readInPlace(v.Name)
	ip, err := s.inPlacer()
	if !ok || err != nil || r.Hidden != "" && ip.FolderHidden(r.Hidden) || !ip.Covers(ctx, v, r.Folder) {
		return savePinned(ctx, k, v, o)
	}
	r.Step = ipUncovering
	if err := s.writeInPlace(r); err != nil {
		return keeper.Result{}, err
	}
	o.Follow = nil // saved from another mount point than the one followed
	off, err := ip.Uncover(ctx, v, r.Folder, false)
	if err != nil {
		r.Step = ipInPlace
		s.writeInPlace(r)
		return keeper.Result{}, fmt.Errorf("save %s: its folder %s is uncovered to be written back on this system, and: %w", v.Name, r.Folder, err)
	}
	res, serr := savePinned(ctx, k, off, o)
	if _, err := s.cover(context.WithoutCancel(ctx), off, r); err != nil {
		return res, errors.Join(serr, fmt.Errorf("save %s: mounting it over %s again failed (it is at %s): %w", v.Name, r.Folder, off.MountPoint, err))
	}
	return res, serr
}

// uncoverForEject takes a written-back disk off its folder for its eject,
// the record saying so first. In use, nothing changes and the error names
// the holders and says how to write back now.
func (s *Service) uncoverForEject(ctx context.Context, v ramdisk.Volume, r inPlaceRecord, force bool) (ramdisk.Volume, error) {
	ip, err := s.inPlacer()
	if err != nil {
		return v, err
	}
	r.Step = ipUncovering
	if err := s.writeInPlace(r); err != nil {
		return v, err
	}
	off, err := ip.Uncover(ctx, v, r.Folder, force)
	if err != nil {
		r.Step = ipInPlace
		s.writeInPlace(r)
		if _, ok := errors.AsType[*ramdisk.BusyError](err); ok {
			return v, fmt.Errorf("%w; it is in place at %s: 'rambar save %s' writes it back now", err, r.Folder, v.Name)
		}
		return v, fmt.Errorf("not ejected: %w", err)
	}
	r.Step = ipEjecting
	return off, s.writeInPlace(r)
}

// recover mounts a disk whose eject failed over its folder again.
func (s *Service) recover(ctx context.Context, v ramdisk.Volume, r inPlaceRecord, inPlace bool) {
	if inPlace {
		s.cover(context.WithoutCancel(ctx), v, r)
	}
}

// unsettled lists the in-place records (DATA/inplace) a stopped RAMBar
// left: a step cut short, or a disk that is gone (a restart).
func (s *Service) unsettled(vs []ramdisk.Volume) []Leftover {
	var out []Leftover
	for _, p := range s.places().Pending(nil) {
		r, ok := s.readInPlace(p.Key)
		if !ok {
			continue
		}
		l := Leftover{Kind: LeftInPlace, Name: r.Name, Path: r.Folder, Step: r.Step}
		switch {
		case !slices.ContainsFunc(vs, func(v ramdisk.Volume) bool { return s.places().Names.Same(v.Name, r.Name) }):
			out = append(out, l.Advised("the record of a disk in place that is gone; the folder shows its last write-back. "+
				"The next create of %s removes it", r.Name))
		case r.Step != ipInPlace:
			out = append(out, l.Advised("a disk in place whose %q step was cut short; the folder shows the disk or its last write-back. "+
				"rambar save %q or rambar eject %q finishes or undoes it", r.Step, r.Name, r.Name))
		}
	}
	return out
}

// remarkInPlace records and marks again a loaded disk in place that this
// data folder no longer knows as its store's (its mark removed through the
// folder's path, its record lost), so it is still saved and written back:
// the in-place record, RAMBar's own, says whose it is.
func (s *Service) remarkInPlace(v ramdisk.Volume) {
	k, st, err := s.keptState(v.Name)
	if err != nil || !st.InPlace || s.Incomplete(v) {
		return
	}
	if !k.Holds(v, st) {
		k.Mark(v, st)
	}
}

// noteLostRecord writes the record of a disk in place whose record is gone
// (removed by hand, or unreadable) while it still covers its folder, so it
// is written back and ejected as one in place.
func (s *Service) noteLostRecord(ctx context.Context, name string) error {
	ip, err := s.inPlacer()
	if err != nil {
		return nil
	}
	_, st, err := s.keptState(name)
	if err != nil || !st.InPlace {
		return nil
	}
	v, err := s.Find(ctx, name)
	if err != nil || !ip.Covers(ctx, v, st.MirrorPath) {
		return nil
	}
	return s.writeInPlace(inPlaceRecord{Name: v.Name, Folder: st.MirrorPath, Hidden: s.hiddenLeft(ip, v.Name), Disk: v.MountPoint, Step: ipInPlace})
}
