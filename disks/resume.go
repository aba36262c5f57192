package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rambar/keeper"
	"rambar/ramdisk"
)

// Resumed says how ResumeReclaim ended a stopped reclaim.
type Resumed string

// Outcomes of ResumeReclaim.
const (
	// ResumeFinished: the disk holds the staged tree, verified; staging removed.
	ResumeFinished Resumed = "finished"
	// ResumeUndone: the disk was never ejected and holds its contents; the
	// partial staging copy was removed.
	ResumeUndone Resumed = "undone"
	// ResumeCleaned: the reclaim had verified the disk whole and was
	// stopped while removing its staging copy, which is now removed; the
	// disk has been ejected since.
	ResumeCleaned Resumed = "cleaned"
)

// ResumeReclaim finishes or undoes a reclaim that was stopped, under the
// disk's lock, by the last step its record names (see the table above):
// when the disk is gone it is made again as it was and the staged copy put
// back; when it was made again and partly filled, it is filled again from
// the staged copy; when it is the untouched original, the partial copy is
// dropped. The staging copy is used only once it is checked against the
// sum of what the disk held, and removed only after the disk is verified
// against that sum. The disk's caches, on their empty folders since the
// reclaim began, point at it again once it is finished or undone.
func (s *Service) ResumeReclaim(ctx context.Context, name string, progress ramdisk.ProgressFunc) (Resumed, ramdisk.Volume, error) {
	release, err := s.lock(ctx, name, "reclaiming")
	if err != nil {
		return "", ramdisk.Volume{}, err
	}
	defer release()
	r, v, err := s.resumeReclaim(ctx, name, progress)
	if r == ResumeFinished || r == ResumeUndone { // the disk holds its contents (err: only the staging copy stayed)
		var made *ramdisk.Plan // the disk was made again (remake)
		if r == ResumeFinished {
			made = &ramdisk.Plan{Name: v.Name}
			s.asItWas(made, v)
		}
		v.Notes = append(v.Notes, s.cachesToDisk(v, made)...)
	}
	return r, v, err
}

// resumeReclaim is ResumeReclaim under the disk's lock.
func (s *Service) resumeReclaim(ctx context.Context, name string, progress ramdisk.ProgressFunc) (Resumed, ramdisk.Volume, error) {
	rec, hasRec := s.readReclaimRecord(name)
	staging := s.stagingOf(name, rec, hasRec)
	v, err := s.Find(ctx, name)
	found := err == nil
	if err != nil && !errors.Is(err, ramdisk.ErrNotFound) {
		return "", v, err
	}
	if staging == "" {
		if hasRec && rec.Step == keeper.ReclaimCopiedBack {
			os.Remove(s.reclaimPath(name)) // stopped between removing the copy and the record
			return cleanedOr(found), v, nil
		}
		os.Remove(s.reclaimPath(name))
		return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: %w: no stopped reclaim to resume", name, ramdisk.ErrNotFound)
	}
	if !hasRec {
		return s.resumeUnrecorded(ctx, name, v, found, staging, progress)
	}
	switch {
	case rec.Step == keeper.ReclaimCopiedBack:
		// Verified whole before the staging copy was touched.
		return cleanedOr(found), v, s.dropStaging(name, staging)
	case found && s.isOriginal(rec, v):
		// Never ejected: the disk holds its contents (and whatever was
		// written to it since); the copy is not needed.
		return ResumeUndone, v, s.dropStaging(name, staging)
	case rec.Step == stepOut || rec.Tree == nil:
		return "", v, fmt.Errorf("reclaim %s: %w: it stopped while copying out, and the disk has been ejected or made again since; "+
			"%s holds a partial copy that was never checked; nothing was changed: remove it when it is not needed", name, ErrReclaimStopped, staging)
	}
	want, err := s.checkStaging(name, staging, *rec.Tree)
	if err != nil {
		return "", v, err
	}
	if !found {
		if v, err = s.remake(ctx, rec); err != nil {
			return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: make it again: %w; its contents are safe in %s", name, err, staging)
		}
	} else {
		got, err := keeper.DigestOf(v.MountPoint, true)
		if err != nil {
			return "", v, fmt.Errorf("reclaim %s: %w; its contents are safe in %s", name, err, staging)
		}
		if got.Sum() == *rec.Tree {
			// Copied back whole; only the marker and the record may be missing.
			if err := s.remark(v, rec.Marker); err != nil {
				return "", v, fmt.Errorf("reclaim %s: %w; its contents are safe in %s", name, err, staging)
			}
			return ResumeFinished, v, s.copiedBack(rec, staging)
		}
		if extra := onlyIn(got, want); len(extra) > 0 {
			return "", v, fmt.Errorf("reclaim %s: %w: the disk mounted now holds %s, which the stopped reclaim did not put there; "+
				"nothing was changed; what the disk held before the reclaim is safe in %s", name, ErrReclaimStopped, strings.Join(extra, ", "), staging)
		}
		if err := keeper.RefuseMounts("reclaim", name, v.MountPoint); err != nil {
			return "", v, fmt.Errorf("%w; its contents are safe in %s", err, staging)
		}
		if err := clearForCopy(v.MountPoint); err != nil {
			return "", v, fmt.Errorf("reclaim %s: %w; its contents are safe in %s", name, err, staging)
		}
	}
	if err := s.fill(ctx, &rec, v, staging, want, progress); err != nil {
		return "", v, err
	}
	return ResumeFinished, v, s.copiedBack(rec, staging)
}

func cleanedOr(found bool) Resumed {
	if found {
		return ResumeFinished
	}
	return ResumeCleaned
}

// isOriginal reports whether the mounted v is the disk the reclaim began
// with (never ejected): by its volume's identity, or, in a record written
// before identities were kept, by its device while copying out.
func (s *Service) isOriginal(rec reclaimRecord, v ramdisk.Volume) bool {
	if rec.Volume != "" {
		return volumeStamp(v.MountPoint) == rec.Volume
	}
	return rec.Step == stepOut && rec.Dev != 0 && devOf(v.MountPoint) == rec.Dev && !emptyDisk(v.MountPoint)
}

// checkStaging digests the staging copy and checks it is what the disk held.
func (s *Service) checkStaging(name, staging string, sum keeper.TreeSum) (keeper.Digest, error) {
	want, err := keeper.DigestOf(staging, true)
	if err != nil {
		return nil, fmt.Errorf("reclaim %s: read %s: %w", name, staging, err)
	}
	if got := want.Sum(); got != sum {
		return nil, fmt.Errorf("reclaim %s: %w: the staging copy %s no longer holds what the disk held (%d entries, %d files; it holds %d and %d); nothing was changed",
			name, ErrReclaimStopped, staging, sum.Entries, sum.Files, got.Entries, got.Files)
	}
	return want, nil
}

// onlyIn lists (at most 5) paths of got that want lacks.
func onlyIn(got, want keeper.Digest) []string {
	var out []string
	for p := range got {
		if _, ok := want[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

// resumeUnrecorded resumes from a staging copy whose record is gone: only
// what needs no guess is done (the disk already holds the copy, or holds
// nothing and gets it).
func (s *Service) resumeUnrecorded(ctx context.Context, name string, v ramdisk.Volume, found bool, staging string, progress ramdisk.ProgressFunc) (Resumed, ramdisk.Volume, error) {
	if !found {
		return "", v, fmt.Errorf("reclaim %s: the disk is gone and the reclaim's record with it; make it (rambar create %q SIZE), then resume again; its contents are safe in %s", name, name, staging)
	}
	want, err := keeper.DigestOf(staging, true)
	if err != nil {
		return "", v, fmt.Errorf("reclaim %s: read %s: %w", name, staging, err)
	}
	got, err := keeper.DigestOf(v.MountPoint, true)
	if err != nil {
		return "", v, err
	}
	switch {
	case got.Sum() == want.Sum():
		return ResumeFinished, v, s.dropStaging(name, staging)
	case !emptyDisk(v.MountPoint):
		return "", v, fmt.Errorf("reclaim %s: %w: the disk and the staging copy %s differ and the reclaim's record is gone, "+
			"so which is newer cannot be told; nothing was changed: keep the one you want and remove the other", name, ErrReclaimStopped, staging)
	}
	rec := reclaimRecord{Name: name, Step: keeper.ReclaimMade, Staging: staging, Made: volumeStamp(v.MountPoint)}
	t := want.Sum()
	rec.Tree = &t
	if err := s.fill(ctx, &rec, v, staging, want, progress); err != nil {
		return "", v, err
	}
	return ResumeFinished, v, s.copiedBack(rec, staging)
}

// fill notes that v is being filled from the staging copy, fills it and
// verifies it (fillFromStaging).
func (s *Service) fill(ctx context.Context, rec *reclaimRecord, v ramdisk.Volume, staging string, want keeper.Digest, progress ramdisk.ProgressFunc) error {
	rec.Step, rec.Staging, rec.Made = keeper.ReclaimMade, staging, volumeStamp(v.MountPoint)
	if err := s.writeReclaimRecord(*rec); err != nil {
		return fmt.Errorf("%w; its contents are safe in %s", err, staging)
	}
	return s.fillFromStaging(ctx, v, staging, want, rec.Marker, progress)
}

// copiedBack records that the disk holds the staged tree again, then
// removes the staging copy and the record.
func (s *Service) copiedBack(rec reclaimRecord, staging string) error {
	rec.Step, rec.Staging = keeper.ReclaimCopiedBack, staging
	if err := s.writeReclaimRecord(rec); err != nil {
		return fmt.Errorf("%w; the disk is whole, and its contents are also in %s", err, staging)
	}
	return s.dropStaging(rec.Name, staging)
}

// fillFromStaging copies a staged tree (its digest want) onto the disk,
// puts its marker back and verifies the disk against want.
func (s *Service) fillFromStaging(ctx context.Context, v ramdisk.Volume, staging string, want keeper.Digest, marker string, progress ramdisk.ProgressFunc) error {
	k, err := s.Keeper()
	if err != nil {
		return err
	}
	notes, err := keeper.CopyTree(ctx, staging, v.MountPoint, mirrorProgress(v.Name, progress), k.CopyFile)
	if err != nil {
		return fmt.Errorf("reclaim %s: copy back: %w; its contents are safe in %s", v.Name, err, staging)
	}
	if len(notes) > 0 {
		// The staging copy stays until everything it holds is back.
		return fmt.Errorf("reclaim %s: copy back: %s could not be kept (%s); its contents are safe in %s", v.Name, notes[0].Path, notes[0].Why, staging)
	}
	if err := s.remark(v, marker); err != nil {
		return fmt.Errorf("reclaim %s: %w; its contents are safe in %s", v.Name, err, staging)
	}
	if err := keeper.KeepRootTimes(staging, v.MountPoint); err != nil {
		return fmt.Errorf("reclaim %s: %w; its contents are safe in %s", v.Name, err, staging)
	}
	if err := keeper.VerifyTree(v.MountPoint, want); err != nil {
		return fmt.Errorf("reclaim %s: verify: %w; its contents are safe in %s", v.Name, err, staging)
	}
	return nil
}

// remake makes the disk again as the record says it was.
func (s *Service) remake(ctx context.Context, r reclaimRecord) (ramdisk.Volume, error) {
	f, err := s.Facts(ctx)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: r.Name, Size: r.Size, FS: r.FS, Hidden: r.Hidden, Force: true}, f)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	if r.MountPoint != "" {
		p.MountPoint = r.MountPoint
	}
	s.asItWas(&p, ramdisk.Volume{Name: r.Name, MountPoint: r.MountPoint})
	return s.Engine.Create(ctx, p)
}

func (s *Service) dropStaging(name, staging string) error {
	if err := keeper.RemoveAll(staging); err != nil {
		return fmt.Errorf("reclaim %s: done and verified, but removing %s failed: %w", name, staging, err)
	}
	os.Remove(filepath.Dir(staging))
	os.Remove(s.reclaimPath(name))
	return nil
}

// emptyDisk reports whether a disk holds nothing but its marker and
// lost+found.
func emptyDisk(root string) bool {
	ents, err := os.ReadDir(root)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if e.Name() != keeper.MarkerName && e.Name() != "lost+found" {
			return false
		}
	}
	return true
}

// clearForCopy removes a partly copied-back tree from a disk made again
// (its marker and lost+found stay), never entering, emptying or removing
// a mount point (keeper.EmptyFolder).
func clearForCopy(root string) error {
	keep := func(name string) bool { return name == keeper.MarkerName || name == "lost+found" }
	if err := keeper.EmptyFolder(root, keep); err != nil {
		return fmt.Errorf("clear %s: %w", root, err)
	}
	return nil
}

// StoppedReclaims lists the staging copies of reclaims that were stopped,
// from the data folder alone (cheap: the menu asks on every refresh).
func (s *Service) StoppedReclaims() []Leftover { return s.stagings() }

// ErrReclaimStopped means a stopped reclaim could not be resumed without a
// guess (its record is gone and the disk differs from the staged copy).
var ErrReclaimStopped = errors.New("reclaim not finished")
