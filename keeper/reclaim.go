package keeper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/snapshot"
	"rambar/tree"

	"rambar/ramdisk"
)

// ReclaimResult says what Reclaim did.
type ReclaimResult struct {
	Volume ramdisk.Volume `json:"disk"`   // the disk as made again
	Files  int            `json:"files"`  // regular files moved out and back
	Bytes  int64          `json:"bytes"`  // their bytes
	Before ramdisk.Usage  `json:"before"` // usage before
	After  ramdisk.Usage  `json:"after"`  // usage after
	// NotKept names what could not be moved out and back: sockets and
	// device nodes (gone after the reclaim), xattrs the system refused.
	NotKept []tree.NotKept `json:"not_kept,omitempty"`
	Took    time.Duration  `json:"took_ns"`
}

// ReclaimError is a Reclaim that failed after the disk was ejected: the
// contents are whole in Staging, which is left in place.
type ReclaimError struct {
	Staging string
	Err     error
}

// Error says what failed and where the contents are.
func (e *ReclaimError) Error() string {
	return fmt.Sprintf("%v; the disk's contents are safe in %s", e.Err, e.Staging)
}

// Unwrap returns the failure.
func (e *ReclaimError) Unwrap() error { return e.Err }

// Steps of a reclaim, in order. A reclaim's journal hears each before the
// reclaim goes past it, so a reclaim stopped at any point (kill -9, a power
// cut) is finished or undone from the last step heard, never from what the
// staging copy or the disk happen to hold then.
const (
	// ReclaimCopyingOut: the staging copy is being made (it may be partial);
	// the disk is untouched.
	ReclaimCopyingOut = "copying out"
	// ReclaimCopiedOut: the staging copy is whole, flushed, and holds what
	// the disk held (ReclaimStep.Tree). The disk is ejected after this.
	ReclaimCopiedOut = "copied out"
	// ReclaimMade: the disk was made again (ReclaimStep.Volume) and is
	// being filled from the staging copy.
	ReclaimMade = "made again"
	// ReclaimCopiedBack: the disk holds Tree again, verified; the staging
	// copy is removed after this.
	ReclaimCopiedBack = "copied back"
)

// ReclaimStep is a step of a reclaim, once its journal records it.
type ReclaimStep struct {
	Step    string
	Staging string // the staging folder
}

// ReclaimJournal hears each step of a reclaim once its journal
// (reclaimlog.go) records it (tests stop the process there); an error
// stops the reclaim at that step.
type ReclaimJournal func(ReclaimStep) error

// Reclaim gives back the memory a disk pins (deleted files on a macOS disk
// image or an undiscarded zram disk): it copies the contents to a staging
// folder in the data folder and checks the copy, ejects the disk (never
// forced), makes it again from plan (same name, size, file system, mount
// point), copies the contents back, checks them by file count and content
// hash against the digest of what the disk held, and only then removes the
// staging copy. Each step is written to the reclaim's journal before it is
// taken (ReclaimCopyingOut ... ReclaimCopiedBack), so a reclaim stopped at
// any step is finished or undone (ResumeReclaim); heard (nil: none) hears
// each once it is written.
//
// A disk with something mounted inside (another file system, a bind
// mount) is refused before anything is copied (RefuseMounts). A busy disk
// is refused with a *ramdisk.BusyError naming the holders before
// anything is copied (where the holders can be found; elsewhere the engine's
// eject refuses it after the copy, and the disk is untouched). If any step
// after the eject fails, the error is a *ReclaimError naming the staging
// folder, which keeps the contents.
func (k *Keeper) Reclaim(ctx context.Context, e ramdisk.Engine, v ramdisk.Volume, plan ramdisk.Plan, heard ReclaimJournal, progress tree.ProgressFunc) (ReclaimResult, error) {
	start := time.Now()
	res := ReclaimResult{}
	if err := k.reclaimable(ctx, e, v, plan, &res); err != nil {
		return res, err
	}
	rec := reclaimRecord{Name: v.Name, Size: v.Size, FS: v.FS, Hidden: v.Hidden, MountPoint: plan.MountPoint,
		Dev: devOf(v.MountPoint), Volume: volumeStamp(v.MountPoint), Marker: MarkerOf(v.MountPoint),
		Step: ReclaimCopyingOut, Staging: StagingFolder(k.Data, v.Name, time.Now())}
	err := k.reclaim(ctx, e, v, plan, rec, heard, progress, &res)
	if _, serr := os.Lstat(rec.Staging); serr != nil {
		// Done, or stopped before the eject with nothing changed.
		k.reclaims().Done(v.Name)
	}
	if err == nil {
		res.After, _ = e.Usage(ctx, res.Volume)
		res.Took = time.Since(start)
	}
	return res, err
}

// reclaimable refuses a reclaim of v before anything is copied: a busy
// disk, one with a mount inside, a plan of another disk; and measures v.
func (k *Keeper) reclaimable(ctx context.Context, e ramdisk.Engine, v ramdisk.Volume, plan ramdisk.Plan, res *ReclaimResult) error {
	if hs := holders(v.MountPoint); len(hs) > 0 {
		return &ramdisk.BusyError{Volume: v.Name, Holders: hs}
	}
	if err := RefuseMounts("reclaim", v.Name, v.MountPoint); err != nil {
		return err
	}
	if plan.Name != v.Name || plan.Size <= 0 {
		return fmt.Errorf("reclaim %s: the plan is for %q", v.Name, plan.Name)
	}
	var err error
	if res.Before, err = e.Usage(ctx, v); err != nil {
		return fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	if k.Data == "" {
		return errors.New("reclaim: no data folder")
	}
	return nil
}

// reclaim is Reclaim's steps, each journalled first (rec).
func (k *Keeper) reclaim(ctx context.Context, e ramdisk.Engine, v ramdisk.Volume, plan ramdisk.Plan, rec reclaimRecord, heard ReclaimJournal, progress tree.ProgressFunc, res *ReclaimResult) error {
	staging := rec.Staging
	if err := k.noteStep(rec, heard); err != nil {
		return err
	}
	if err := os.MkdirAll(staging, 0o700); err != nil {
		return tree.NoSpace(fmt.Errorf("reclaim %s: make %s: %w", v.Name, staging, err))
	}
	known, isKnown := k.Known(v) // the disk made again is recorded as this one was
	// 1. Copy out and check the copy. The disk is untouched so far: any
	// failure removes the staging copy and leaves the disk as it was.
	entries, want, notKept, err := stageOut(ctx, v.MountPoint, staging, progress)
	if err == nil {
		err = tree.KeepRootTimes(v.MountPoint, staging) // the staging copy keeps them for a resume
	}
	if err == nil {
		t := want.Sum()
		rec.Step, rec.Tree = ReclaimCopiedOut, &t
		err = k.noteStep(rec, heard)
	}
	if err != nil {
		tree.RemoveAll(staging)
		return fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	for _, x := range entries {
		if x.Kind == tree.KindFile {
			res.Files++
			res.Bytes += x.Size
		}
	}
	// 2. Eject, never forced. Busy: nothing changed, drop the copy.
	if err := e.Eject(ctx, v, false); err != nil {
		if errors.Is(err, ramdisk.ErrBusy) {
			tree.RemoveAll(staging)
			return fmt.Errorf("reclaim %s: %w", v.Name, err)
		}
		return &ReclaimError{Staging: staging, Err: fmt.Errorf("reclaim %s: eject: %w", v.Name, err)}
	}
	// 3. Make it again, copy back and verify (putBack), record that it is
	// back, and only then touch the staging copy.
	nv, err := e.Create(ctx, plan)
	if err != nil {
		return &ReclaimError{Staging: staging, Err: fmt.Errorf("reclaim %s: make it again: %w", v.Name, err)}
	}
	res.Volume, rec.Step, rec.Made = nv, ReclaimMade, volumeStamp(nv.MountPoint)
	if err := k.noteStep(rec, heard); err != nil {
		return &ReclaimError{Staging: staging, Err: err}
	}
	carry := func() error { // same kind and store; a disk this data folder did not know stays unknown
		if isKnown {
			return k.note(nv, known.Kind, known.ID)
		}
		return nil
	}
	notes, err := k.putBack(ctx, nv, staging, entries, want, progress, carry)
	res.NotKept = append(notKept, notes...)
	if err != nil {
		return &ReclaimError{Staging: staging, Err: fmt.Errorf("reclaim %s: %w", v.Name, err)}
	}
	rec.Step = ReclaimCopiedBack
	if err := k.noteStep(rec, heard); err != nil {
		return &ReclaimError{Staging: staging, Err: err}
	}
	return k.dropStaging(v.Name, staging)
}

// StagingFolder is where a reclaim of disk name begun at t keeps the
// disk's contents while it is made again: DATA/reclaim/NAME-TIME.
func StagingFolder(data, name string, t time.Time) string {
	return filepath.Join(data, "reclaim", name+"-"+t.UTC().Format("20060102T150405Z"))
}

// stageOut copies the disk at root into staging and checks the copy
// against the disk: the disk's entries, the copy's digest, and what could
// not be moved (sockets and device nodes, xattrs the system refused).
func stageOut(ctx context.Context, root, staging string, progress tree.ProgressFunc) ([]tree.Entry, tree.Digest, []tree.NotKept, error) {
	entries, notKept, err := tree.EntriesAll(root)
	if err != nil {
		return nil, nil, nil, err
	}
	b := snapshot.Build{From: root, Src: tree.SamePath, Progress: tree.Phase(progress, "copying out"), CheckSpace: true}
	notes, err := snapshot.BuildTree(ctx, entries, staging, b)
	if err != nil {
		return nil, nil, nil, err
	}
	want, err := tree.DigestOf(staging, true)
	if err != nil {
		return nil, nil, nil, err
	}
	got, err := tree.DigestOf(root, true)
	if err != nil {
		return nil, nil, nil, err
	}
	if diff := want.Diff(got, 5); len(diff) > 0 {
		return nil, nil, nil, fmt.Errorf("the disk changed while it was copied (%v); try again when it is idle", diff)
	}
	// Once the disk is ejected the staging copy is all there is: on the
	// drive before that, not in the page cache.
	var files []string
	for _, e := range entries {
		if e.Kind == tree.KindFile && e.HardLink == "" {
			files = append(files, filepath.Join(staging, filepath.FromSlash(e.Path)))
		}
	}
	if err := tree.FlushTree(staging, files); err != nil {
		return nil, nil, nil, err
	}
	return entries, want, append(notKept, notes...), nil
}

// VerifyTree checks the tree at root against want (the digest of what it
// should hold), by count and content.
func VerifyTree(root string, want tree.Digest) error {
	got, err := tree.DigestOf(root, true)
	if err != nil {
		return err
	}
	if got.Files() != want.Files() || len(got) != len(want) {
		return fmt.Errorf("%d files back of %d (%d entries of %d)", got.Files(), want.Files(), len(got), len(want))
	}
	if diff := want.Diff(got, 5); len(diff) > 0 {
		return fmt.Errorf("differs at %v", diff)
	}
	return nil
}
