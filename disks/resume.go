package disks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
	"rambar/mirror"
	"rambar/ramdisk"
)

// A reclaim that was stopped (kill -9 at any step) leaves its staging copy
// in DATA/reclaim/NAME-TIME/, and disks' record of it in
// DATA/reclaiming/KEY.json: the disk as it was (size, file system, mount
// point, device, marker) and the step reached. ResumeReclaim finishes or
// undoes it, and so does the next Create of a disk that is gone; the
// staging copy is removed only once the disk is verified to hold the same
// tree, or is the untouched original.

// Reclaim steps, as the record says them.
const (
	stepOut  = "copying out"  // the disk is untouched so far
	stepBack = "copying back" // the disk is being ejected, or was, and made again
)

// reclaimRecord is what is kept about a reclaim while it runs.
type reclaimRecord struct {
	Name       string             `json:"name"`
	Size       ramdisk.Size       `json:"size_bytes"`
	FS         ramdisk.FileSystem `json:"fs"`
	Hidden     bool               `json:"hidden,omitempty"`
	MountPoint string             `json:"mount_point"`
	Dev        uint64             `json:"dev"`
	Marker     string             `json:"marker,omitempty"`
	Step       string             `json:"step"`
}

func (s *Service) reclaimPath(name string) string {
	return filepath.Join(s.Paths.Data, "reclaiming", strings.TrimSuffix(lockName(name), ".lock")+".json")
}

func (s *Service) writeReclaimRecord(r reclaimRecord) error {
	p := s.reclaimPath(r.Name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("reclaim %s: %w", r.Name, err)
	}
	b, _ := json.Marshal(r)
	return atomicfile.WriteFile(p, b, 0o600)
}

// readReclaimRecord reads the record, bounded; ok is false when there is
// none or it cannot be read.
func (s *Service) readReclaimRecord(name string) (reclaimRecord, bool) {
	f, err := os.Open(s.reclaimPath(name))
	if err != nil {
		return reclaimRecord{}, false
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, 64<<10))
	var r reclaimRecord
	if json.Unmarshal(b, &r) != nil || !strings.EqualFold(r.Name, name) {
		return reclaimRecord{}, false
	}
	return r, true
}

// devOf is the device of the file system mounted at dir.
func devOf(dir string) uint64 {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return 0
	}
	return uint64(st.Dev)
}

// recordingEngine notes in the reclaim's record, before the disk is
// ejected, that from now on the disk may be gone or made again: a resume
// then never takes it for the untouched original.
type recordingEngine struct {
	ramdisk.Engine
	s   *Service
	rec reclaimRecord
}

// Eject records the step, then ejects.
func (e recordingEngine) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	e.rec.Step = stepBack
	if err := e.s.writeReclaimRecord(e.rec); err != nil {
		return fmt.Errorf("reclaim %s: %w", v.Name, err)
	}
	return e.Engine.Eject(ctx, v, force)
}

// stagingFor returns the newest staging folder of a disk, "" if none.
func (s *Service) stagingFor(name string) string {
	var found []string
	for _, l := range s.stagings() {
		if l.Name == name {
			found = append(found, l.Path)
		}
	}
	if len(found) == 0 {
		return ""
	}
	sort.Strings(found) // the time stamp sorts
	return found[len(found)-1]
}

// Resumed says how ResumeReclaim ended a stopped reclaim.
type Resumed string

// Outcomes of ResumeReclaim.
const (
	// ResumeFinished: the disk holds the staged tree, verified; staging removed.
	ResumeFinished Resumed = "finished"
	// ResumeUndone: the disk was never ejected and holds its contents; the
	// partial staging copy was removed.
	ResumeUndone Resumed = "undone"
)

// ResumeReclaim finishes or undoes a reclaim that was stopped, under the
// disk's lock: when the disk is gone it is made again as it was and the
// staged copy put back; when it was made again and partly filled, it is
// filled again from the staged copy; when it is the untouched original,
// the partial copy is dropped. The staging copy is removed only after the
// disk is verified (every file's content and times) against it. The disk's
// caches, on their empty folders since the reclaim began, point at it again
// once it is finished or undone.
func (s *Service) ResumeReclaim(ctx context.Context, name string, progress ramdisk.ProgressFunc) (Resumed, ramdisk.Volume, error) {
	release, err := s.lock(ctx, name, "reclaiming")
	if err != nil {
		return "", ramdisk.Volume{}, err
	}
	defer release()
	r, v, err := s.resumeReclaim(ctx, name, progress)
	if r != "" { // the disk holds its contents (err: only the staging copy stayed)
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
	staging := s.stagingFor(name)
	rec, hasRec := s.readReclaimRecord(name)
	if staging == "" {
		os.Remove(s.reclaimPath(name))
		return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: %w: no stopped reclaim to resume", name, ramdisk.ErrNotFound)
	}
	want, err := mirror.DigestTree(staging, true)
	if err != nil {
		return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: read %s: %w", name, staging, err)
	}
	v, err := s.Find(ctx, name)
	switch {
	case errors.Is(err, ramdisk.ErrNotFound) && !hasRec:
		return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: the disk is gone and its size was not recorded; make it (rambar create %q SIZE), then resume again; its contents are safe in %s", name, name, staging)
	case errors.Is(err, ramdisk.ErrNotFound):
		if v, err = s.remake(ctx, rec); err != nil {
			return "", ramdisk.Volume{}, fmt.Errorf("reclaim %s: make it again: %w; its contents are safe in %s", name, err, staging)
		}
	case err != nil:
		return "", ramdisk.Volume{}, err
	default:
		got, err := mirror.DigestTree(v.MountPoint, true)
		if err != nil {
			return "", v, err
		}
		if len(want.Diff(got, 1)) == 0 && len(got) == len(want) {
			// Copied back whole; only the marker may be missing.
			if err := s.remark(v, rec.Marker); err != nil {
				return "", v, fmt.Errorf("reclaim %s: %w; its contents are safe in %s", name, err, staging)
			}
			return ResumeFinished, v, s.dropStaging(name, staging)
		}
		if hasRec && rec.Step == stepOut && rec.Dev != 0 && devOf(v.MountPoint) == rec.Dev && !emptyDisk(v.MountPoint) {
			// Stopped while copying out: the disk is the original, whole.
			return ResumeUndone, v, s.dropStaging(name, staging)
		}
		if !hasRec && !emptyDisk(v.MountPoint) {
			// Without the record there is no telling which is newer: guess nothing.
			return "", v, fmt.Errorf("reclaim %s: %w: the disk and the staging copy %s differ and the reclaim's record is gone, "+
				"so which is newer cannot be told; nothing was changed: keep the one you want and remove the other", name, ErrReclaimStopped, staging)
		}
		if err := clearForCopy(v.MountPoint); err != nil {
			return "", v, fmt.Errorf("reclaim %s: %w; its contents are safe in %s", name, err, staging)
		}
	}
	if err := s.fillFromStaging(ctx, v, staging, want, rec.Marker, progress); err != nil {
		return "", v, err
	}
	return ResumeFinished, v, s.dropStaging(name, staging)
}

// fillFromStaging copies a staged tree (its digest want) onto the disk,
// puts its marker back and verifies the disk against want.
func (s *Service) fillFromStaging(ctx context.Context, v ramdisk.Volume, staging string, want mirror.Digest, marker string, progress ramdisk.ProgressFunc) error {
	k, err := s.Keeper()
	if err != nil {
		return err
	}
	notes, err := mirror.CopyTree(ctx, staging, v.MountPoint, mirrorProgress(v.Name, progress), k.CopyFile)
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
	got, err := mirror.DigestTree(v.MountPoint, true)
	if err != nil {
		return err
	}
	if diff := want.Diff(got, 5); len(diff) > 0 || len(got) != len(want) {
		return fmt.Errorf("reclaim %s: verify: differs at %v; its contents are safe in %s", v.Name, diff, staging)
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
	if err := os.RemoveAll(staging); err != nil {
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
		if e.Name() != mirror.MarkerName && e.Name() != "lost+found" {
			return false
		}
	}
	return true
}

// clearForCopy removes a partly copied-back tree from a disk made again.
func clearForCopy(root string) error {
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name() == mirror.MarkerName || e.Name() == "lost+found" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			return fmt.Errorf("clear %s: %w", root, err)
		}
	}
	return nil
}

// StoppedReclaims lists the staging copies of reclaims that were stopped,
// from the data folder alone (cheap: the menu asks on every refresh).
func (s *Service) StoppedReclaims() []Leftover { return s.stagings() }

// stoppedWhileGone returns the staging copy of a reclaim of the disk that
// was stopped after the eject ("" if none): the disk is not mounted, so its
// contents are only there.
func (s *Service) stoppedWhileGone(name string) (string, reclaimRecord) {
	rec, ok := s.readReclaimRecord(name)
	if !ok {
		return "", rec
	}
	return s.stagingFor(name), rec
}

// finishFromStaging is the next create of a disk whose reclaim was stopped
// while it was gone: the disk made from c.Plan gets the staged contents
// back (newer than any save), verified, and only then is the staging copy
// removed. If they do not go back, the disk is ejected again and the staging
// copy stays.
func (s *Service) finishFromStaging(ctx context.Context, c Created, staging string, rec reclaimRecord, progress ramdisk.ProgressFunc) (Created, error) {
	want, err := mirror.DigestTree(staging, true)
	if err != nil {
		return c, fmt.Errorf("create %s: read %s: %w", c.Plan.Name, staging, err)
	}
	if c.Volume, err = s.Engine.Create(ctx, c.Plan); err != nil {
		s.cachesAway(context.WithoutCancel(ctx), c.Plan.Name)
		return c, fmt.Errorf("create %s: %w", c.Plan.Name, err)
	}
	s.recordMade(&c)
	if err := s.fillFromStaging(ctx, c.Volume, staging, want, rec.Marker, progress); err != nil {
		if ejErr := s.Engine.Eject(context.WithoutCancel(ctx), c.Volume, true); ejErr != nil {
			err = fmt.Errorf("%w (and ejecting it again failed: %v)", err, ejErr)
		}
		return c, err
	}
	c.Reclaimed = staging
	s.madeExtras(&c)
	return c, s.dropStaging(c.Plan.Name, staging)
}

// ErrReclaimStopped means a stopped reclaim could not be resumed without a
// guess (its record is gone and the disk differs from the staged copy).
var ErrReclaimStopped = errors.New("reclaim not finished")
