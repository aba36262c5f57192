package keeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"rambar/i18n"
	"rambar/ramdisk"
	"rambar/snapshot"
	"rambar/tree"
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

// ErrReclaimStopped means a stopped reclaim could not be resumed without a
// guess (its record is gone and the disk differs from the staged copy).
var ErrReclaimStopped = i18n.New("reclaim not finished")

// Remade is a disk as a reclaim's journal says it was, to be made again.
type Remade struct {
	Name       string
	Size       ramdisk.Size
	FS         ramdisk.FileSystem
	Hidden     bool
	MountPoint string
}

// Resume is what resuming a reclaim needs of the use cases: the disk
// mounted under a name (ramdisk.ErrNotFound when none), and the disk made
// again as it was.
type Resume struct {
	Find     func(ctx context.Context, name string) (ramdisk.Volume, error)
	Remake   func(ctx context.Context, d Remade) (ramdisk.Volume, error)
	Progress tree.ProgressFunc
}

// ResumeReclaim finishes or undoes a reclaim of disk name that was
// stopped, by the last step its journal names (reclaimlog.go): when the
// disk is gone it is made again as it was and the staged copy put back;
// when it was made again and partly filled, it is filled again from the
// staged copy; when it is the untouched original, the partial copy is
// dropped. The staging copy is used only once it is checked against the
// sum of what the disk held, and removed only after the disk is verified
// against that sum. The caller holds the disk's lock.
func (k *Keeper) ResumeReclaim(ctx context.Context, name string, r Resume) (Resumed, ramdisk.Volume, error) {
	rec, hasRec := k.readReclaim(name)
	staging := k.stagingOf(name, rec, hasRec)
	v, err := r.Find(ctx, name)
	found := err == nil
	if err != nil && !errors.Is(err, ramdisk.ErrNotFound) {
		return "", v, err
	}
	if staging == "" {
		k.reclaims().Done(name)
		switch {
		case hasRec && rec.Step == ReclaimCopiedBack: // stopped between removing the copy and the journal
			return cleanedOr(found), v, nil
		case hasRec && rec.Step == ReclaimCopyingOut && found && isOriginal(rec, v):
			return ResumeUndone, v, nil // stopped before its staging folder was made: the disk was never touched
		}
		return "", ramdisk.Volume{}, i18n.Errorf("reclaim %s: %w: no stopped reclaim to resume", name, ramdisk.ErrNotFound)
	}
	if !hasRec {
		return k.resumeUnrecorded(ctx, name, v, found, staging, r.Progress)
	}
	switch {
	case rec.Step == ReclaimCopiedBack:
		// Verified whole before the staging copy was touched.
		return cleanedOr(found), v, k.dropStaging(name, staging)
	case found && isOriginal(rec, v):
		// Never ejected: the disk holds its contents (and whatever was
		// written to it since); the copy is not needed.
		return ResumeUndone, v, k.dropStaging(name, staging)
	case rec.Step == ReclaimCopyingOut || rec.Tree == nil:
		return "", v, fmt.Errorf("reclaim %s: %w: it stopped while copying out, and the disk has been ejected or made again since; "+
			"%s holds a partial copy that was never checked; nothing was changed: remove it when it is not needed", name, ErrReclaimStopped, staging)
	}
	want, err := checkStaging(name, staging, *rec.Tree)
	if err != nil {
		return "", v, err
	}
	if !found {
		if v, err = r.Remake(ctx, Remade{Name: rec.Name, Size: rec.Size, FS: rec.FS, Hidden: rec.Hidden, MountPoint: rec.MountPoint}); err != nil {
			return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: make it again: %w; its contents are safe in %s", name, err, staging)
		}
	} else if done, err := k.readyForRefill(name, v, rec, staging, want); err != nil {
		return "", v, err
	} else if done {
		return ResumeFinished, v, nil
	}
	if err := k.refill(ctx, rec, v, staging, want, r.Progress); err != nil {
		return "", v, err
	}
	return ResumeFinished, v, nil
}

// readyForRefill looks at the disk a stopped reclaim made again (or that
// was made since): done when it holds the staged tree already (only its
// marker and journal may be missing: put right); else, when it holds
// nothing the staging copy lacks, it is cleared for the refill.
func (k *Keeper) readyForRefill(name string, v ramdisk.Volume, rec reclaimRecord, staging string, want tree.Digest) (done bool, err error) {
	safe := func(err error) error {
		return fmt.Errorf("reclaim %s: %w; its contents are safe in %s", name, err, staging)
	}
	got, err := tree.DigestOf(v.MountPoint, true)
	if err != nil {
		return false, safe(err)
	}
	if got.Sum() == *rec.Tree {
		if err := k.remark(v, rec.Marker); err != nil {
			return false, safe(err)
		}
		if err := k.copiedBack(rec, staging, nil); err != nil {
			return false, err
		}
		return true, nil
	}
	if extra := onlyIn(got, want); len(extra) > 0 {
		return false, fmt.Errorf("reclaim %s: %w: the disk mounted now holds %s, which the stopped reclaim did not put there; "+
			"nothing was changed; what the disk held before the reclaim is safe in %s", name, ErrReclaimStopped, strings.Join(extra, ", "), staging)
	}
	if err := RefuseMounts("reclaim", name, v.MountPoint); err != nil {
		return false, fmt.Errorf("%w; its contents are safe in %s", err, staging)
	}
	if err := tree.ClearDisk(v.MountPoint); err != nil {
		return false, safe(err)
	}
	return false, nil
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
func isOriginal(rec reclaimRecord, v ramdisk.Volume) bool {
	if rec.Volume != "" {
		return volumeStamp(v.MountPoint) == rec.Volume
	}
	has, err := tree.HasContents(v.MountPoint)
	return rec.Step == ReclaimCopyingOut && rec.Dev != 0 && devOf(v.MountPoint) == rec.Dev && err == nil && has
}

// checkStaging digests the staging copy and checks it is what the disk held.
func checkStaging(name, staging string, sum tree.TreeSum) (tree.Digest, error) {
	want, err := tree.DigestOf(staging, true)
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
func onlyIn(got, want tree.Digest) []string {
	var out []string
	for p := range got {
		if _, ok := want[p]; !ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out[:min(len(out), 5)]
}

// resumeUnrecorded resumes from a staging copy whose journal is gone: only
// what needs no guess is done (the disk already holds the copy, or holds
// nothing and gets it).
func (k *Keeper) resumeUnrecorded(ctx context.Context, name string, v ramdisk.Volume, found bool, staging string, progress tree.ProgressFunc) (Resumed, ramdisk.Volume, error) {
	if !found {
		return "", v, fmt.Errorf("reclaim %s: the disk is gone and the reclaim's record with it; make it (rambar create %q SIZE), then resume again; its contents are safe in %s", name, name, staging)
	}
	want, err := tree.DigestOf(staging, true)
	if err != nil {
		return "", v, fmt.Errorf("reclaim %s: read %s: %w", name, staging, err)
	}
	got, err := tree.DigestOf(v.MountPoint, true)
	if err != nil {
		return "", v, err
	}
	has, herr := tree.HasContents(v.MountPoint)
	switch {
	case got.Sum() == want.Sum():
		return ResumeFinished, v, k.dropStaging(name, staging)
	case herr != nil || has:
		return "", v, fmt.Errorf("reclaim %s: %w: the disk and the staging copy %s differ and the reclaim's record is gone, "+
			"so which is newer cannot be told; nothing was changed: keep the one you want and remove the other", name, ErrReclaimStopped, staging)
	}
	t := want.Sum()
	if err := k.refill(ctx, reclaimRecord{Name: name, Tree: &t}, v, staging, want, progress); err != nil {
		return "", v, err
	}
	return ResumeFinished, v, nil
}

// StoppedWhileGone is a reclaim stopped after its disk was ejected, whose
// staging copy was checked: the next create of the disk puts it back
// (Refill), as it is newer than any save.
type StoppedWhileGone struct {
	rec     reclaimRecord
	staging string
	want    tree.Digest
}

// Staging is the staging copy.
func (s *StoppedWhileGone) Staging() string { return s.staging }

// StoppedWhileGone returns the reclaim of disk name that was stopped after
// the eject (nil if none): the disk is not mounted, so its contents are
// only in the staging copy, which is checked against the sum of what the
// disk held (an error when it no longer holds that: nothing is changed).
// A reclaim stopped while copying out, or one whose journal is gone, is
// left to ResumeReclaim (the next create makes the disk as if there were
// none); one that had already verified the disk whole has what is left of
// its copy removed.
func (k *Keeper) StoppedWhileGone(name string) (*StoppedWhileGone, error) {
	rec, ok := k.readReclaim(name)
	if !ok {
		return nil, nil
	}
	staging := k.stagingOf(name, rec, true)
	switch {
	case rec.Step == ReclaimCopiedBack:
		if staging != "" {
			k.dropStaging(name, staging)
		} else {
			k.reclaims().Done(name)
		}
		return nil, nil
	case rec.Step == ReclaimCopyingOut || rec.Tree == nil || staging == "":
		return nil, nil
	}
	want, err := checkStaging(name, staging, *rec.Tree)
	if err != nil {
		return nil, err
	}
	return &StoppedWhileGone{rec: rec, staging: staging, want: want}, nil
}

// Refill puts a reclaim's staging copy back on the disk v made again,
// verifies it and only then removes the copy.
func (k *Keeper) Refill(ctx context.Context, v ramdisk.Volume, s *StoppedWhileGone, progress tree.ProgressFunc) error {
	return k.refill(ctx, s.rec, v, s.staging, s.want, progress)
}

// refill notes that v is being filled from the staging copy, fills it
// (putBack), marks it as what it was, and records it copied back.
func (k *Keeper) refill(ctx context.Context, rec reclaimRecord, v ramdisk.Volume, staging string, want tree.Digest, progress tree.ProgressFunc) error {
	rec.Step, rec.Staging, rec.Made = ReclaimMade, staging, volumeStamp(v.MountPoint)
	if err := k.noteStep(rec, nil); err != nil {
		return fmt.Errorf("%w; its contents are safe in %s", err, staging)
	}
	notes, err := k.putBack(ctx, v, staging, nil, want, progress, func() error { return k.remark(v, rec.Marker) })
	if err == nil && len(notes) > 0 {
		// The staging copy stays until everything it holds is back.
		err = fmt.Errorf("copy back: %s could not be kept (%s)", notes[0].Path, notes[0].Why)
	}
	if err != nil {
		return fmt.Errorf("reclaim %s: %w; its contents are safe in %s", v.Name, err, staging)
	}
	return k.copiedBack(rec, staging, nil)
}

// putBack is the tail both a reclaim and its resume end with: the staged
// tree (entries, or read from staging when nil) copied onto the disk made
// again, the disk noted as what it was (mark), its root's times, then the
// disk verified against want by count and content.
func (k *Keeper) putBack(ctx context.Context, v ramdisk.Volume, staging string, entries []tree.Entry, want tree.Digest,
	progress tree.ProgressFunc, mark func() error) ([]tree.NotKept, error) {
	if entries == nil {
		var err error
		if entries, err = tree.Entries(staging); err != nil {
			return nil, err
		}
	}
	notes, err := snapshot.BuildTree(ctx, entries, v.MountPoint,
		snapshot.Build{From: staging, Src: tree.SamePath, Progress: tree.Phase(progress, "copying back"), CheckSpace: true, CopyFile: k.CopyFile})
	if err != nil {
		return notes, fmt.Errorf("copy back: %w", err)
	}
	if err := mark(); err != nil {
		return notes, err
	}
	if err := tree.KeepRootTimes(staging, v.MountPoint); err != nil {
		return notes, err
	}
	if err := VerifyTree(v.MountPoint, want); err != nil {
		return notes, fmt.Errorf("verify: %w", err)
	}
	return notes, nil
}
