package keeper

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/diskid"
	"rambar/internal/record"
	"rambar/ramdisk"
	"rambar/tree"
)

// A reclaim that was stopped (kill -9 at any step) leaves its staging copy
// in DATA/reclaim/NAME-TIME/, and its step journal in
// DATA/reclaiming/KEY.json (internal/record): the disk as it was (size,
// file system, mount point, its volume's identity, marker), the staging
// folder, the last step the reclaim reached (ReclaimCopyingOut ...
// ReclaimCopiedBack) and, from "copied out" on, the sum of what the disk
// held. ResumeReclaim finishes or undoes it, and so does the next Create of
// a disk that is gone (StoppedWhileGone). What each step allows:
//
//	copying out   the staging copy may be partial: never used. The disk, if
//	              it is the original, is whole: undone (the copy removed).
//	copied out,   the staging copy is whole and must still match the sum,
//	made again    else nothing is done. The original disk still mounted:
//	              undone. Gone: made again and filled. Made again (by the
//	              reclaim or anyone): filled, unless it holds a path the
//	              staging copy lacks (someone else's work: nothing is done).
//	copied back   the disk was verified whole before the staging copy was
//	              touched: what is left of the copy is removed.
//
// The disk is always checked against the sum recorded before anything was
// moved, never against what is left in the staging folder.

// reclaimRecord is the journal of one reclaim.
type reclaimRecord struct {
	Name       string             `json:"name"`
	Size       ramdisk.Size       `json:"size_bytes"`
	FS         ramdisk.FileSystem `json:"fs"`
	Hidden     bool               `json:"hidden,omitempty"`
	MountPoint string             `json:"mount_point"`
	Dev        uint64             `json:"dev"`
	// Volume is the disk's identity when the reclaim began (volumeStamp);
	// Made the identity of the disk the reclaim made again.
	Volume  string        `json:"volume,omitempty"`
	Made    string        `json:"made_volume,omitempty"`
	Marker  string        `json:"marker,omitempty"`
	Step    string        `json:"step"`
	Staging string        `json:"staging,omitempty"`
	Tree    *tree.TreeSum `json:"tree,omitempty"`
}

// reclaims is the journal of reclaims.
func (k *Keeper) reclaims() record.Log[reclaimRecord] {
	return record.Log[reclaimRecord]{Kind: k.kind("reclaiming"), Op: "reclaim",
		Key:  func(r *reclaimRecord) string { return r.Name },
		Step: func(r *reclaimRecord) string { return r.Step }}
}

// noteStep records rec's step, then tells heard (tests kill the process there).
func (k *Keeper) noteStep(rec reclaimRecord, heard ReclaimJournal) error {
	if err := k.reclaims().Note(rec); err != nil {
		return fmt.Errorf("reclaim %s: record the step %q: %w", rec.Name, rec.Step, err)
	}
	if heard != nil {
		return heard(ReclaimStep{Step: rec.Step, Staging: rec.Staging})
	}
	return nil
}

// readReclaim reads a reclaim's journal; ok is false when there is none or
// it cannot be read. A staging folder it names outside DATA/reclaim, or of
// another disk, is dropped from it.
func (k *Keeper) readReclaim(name string) (reclaimRecord, bool) {
	r, _, ok := k.reclaims().Get(name)
	if !ok || !k.reclaims().Names.Same(r.Name, name) {
		return reclaimRecord{}, false
	}
	if d, ok := stagingDisk(filepath.Base(r.Staging)); !ok || d != r.Name ||
		r.Staging != filepath.Join(k.Data, "reclaim", filepath.Base(r.Staging)) {
		r.Staging = ""
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

// MarkerOf is the store id the disk mounted at dir is marked with: its
// RAMBar mark's, when the mark was written for this volume, else an older
// RAMBar's marker file's (MarkerName); "" when there is none.
func MarkerOf(dir string) string {
	if m, err := diskid.ReadMark(dir); err == nil && m.For(dir) {
		return m.ID
	}
	return legacyMarker(dir, 256)
}

// remark notes a disk a reclaim made again (or found) as what it was: the
// store's whose id is marker, or a plain disk of this data folder.
func (k *Keeper) remark(v ramdisk.Volume, marker string) error {
	if marker != "" {
		if st, err := k.State(v.Name); err == nil && st.ID == marker {
			return k.Adopt(v)
		}
		return nil
	}
	if _, ok := k.Known(v); ok {
		return nil
	}
	return k.Note(v, diskid.KindPlain)
}

// Stopped is a reclaim that was stopped: its staging copy (Path), or, when
// Finished, only its journal (the reclaim verified the disk whole and was
// stopped before it removed its journal).
type Stopped struct {
	Name     string
	Path     string
	Finished bool
	// Untouched: it was stopped after its journal was written and before
	// its staging folder was made; the disk is as it was.
	Untouched bool
}

// StoppedReclaims lists the stopped reclaims, from the data folder alone
// (cheap: the menu asks on every refresh): the staging folders
// DATA/reclaim/NAME-TIME, the journals of reclaims that finished but for
// removing them, and those of reclaims stopped before they made their
// staging folder.
func (k *Keeper) StoppedReclaims() []Stopped {
	if k.Data == "" {
		return nil
	}
	dir := filepath.Join(k.Data, "reclaim")
	ents, _ := os.ReadDir(dir) // none: no staging copy
	var out []Stopped
	for _, e := range ents {
		if name, ok := stagingDisk(e.Name()); ok && e.IsDir() {
			out = append(out, Stopped{Name: name, Path: filepath.Join(dir, e.Name())})
		}
	}
	for _, p := range k.reclaims().Pending(func(r *reclaimRecord) bool { return r.Step == ReclaimCopiedBack || r.Step == ReclaimCopyingOut }) {
		rec, ok := k.readReclaim(p.Key)
		if ok && ramdisk.ValidateName(rec.Name) == nil && k.stagingOf(rec.Name, rec, true) == "" &&
			!slices.ContainsFunc(out, func(s Stopped) bool { return k.reclaims().Names.Same(s.Name, rec.Name) }) {
			out = append(out, Stopped{Name: rec.Name, Path: p.Path, Finished: rec.Step == ReclaimCopiedBack, Untouched: rec.Step == ReclaimCopyingOut})
		}
	}
	return out
}

// stagingDisk returns the disk a staging folder's name belongs to:
// NAME-20060102T150405Z.
func stagingDisk(folder string) (string, bool) {
	const stamp = len("-20060102T150405Z")
	if len(folder) <= stamp || folder[len(folder)-stamp] != '-' || !strings.HasSuffix(folder, "Z") {
		return "", false
	}
	name := folder[:len(folder)-stamp]
	return name, ramdisk.ValidateName(name) == nil
}

// StagingFor returns the newest staging folder of a disk, "" if none.
func (k *Keeper) StagingFor(name string) string {
	newest := ""
	for _, s := range k.StoppedReclaims() {
		if s.Name == name && !s.Finished && !s.Untouched {
			newest = max(newest, s.Path) // the time stamp sorts
		}
	}
	return newest
}

// stagingOf is the staging folder of a stopped reclaim: the one its record
// names, else the newest there is; "" when it is gone.
func (k *Keeper) stagingOf(name string, rec reclaimRecord, hasRec bool) string {
	if hasRec && rec.Staging != "" {
		if st, err := os.Lstat(rec.Staging); err == nil && st.IsDir() {
			return rec.Staging
		}
		return ""
	}
	return k.StagingFor(name)
}

// copiedBack records that the disk holds the staged tree again, then
// removes the staging copy and the journal.
func (k *Keeper) copiedBack(rec reclaimRecord, staging string, heard ReclaimJournal) error {
	rec.Step, rec.Staging = ReclaimCopiedBack, staging
	if err := k.noteStep(rec, heard); err != nil {
		return fmt.Errorf("%w; the disk is whole, and its contents are also in %s", err, staging)
	}
	return k.dropStaging(rec.Name, staging)
}

// dropStaging removes a staging copy, its folder once empty, and the journal.
func (k *Keeper) dropStaging(name, staging string) error {
	if err := tree.RemoveAll(staging); err != nil {
		return fmt.Errorf("reclaim %s: done and verified, but removing %s failed: %w", name, staging, err)
	}
	os.Remove(filepath.Dir(staging))
	k.reclaims().Done(name)
	return nil
}
