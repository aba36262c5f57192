package disks

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
	"rambar/keeper"
	"rambar/ramdisk"
)

// A reclaim that was stopped (kill -9 at any step) leaves its staging copy
// in DATA/reclaim/NAME-TIME/, and disks' record of it in
// DATA/reclaiming/KEY.json: the disk as it was (size, file system, mount
// point, its volume's identity, marker), the staging folder, the last step
// the reclaim reached (keeper.ReclaimCopyingOut ... ReclaimCopiedBack) and,
// from "copied out" on, the sum of what the disk held. ResumeReclaim
// finishes or undoes it, and so does the next Create of a disk that is
// gone. What each step allows:
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

// stepOut is the first step; records written before the steps had names
// of their own say "copying back" for every later one.
const stepOut = keeper.ReclaimCopyingOut

// reclaimRecord is what is kept about a reclaim while it runs.
type reclaimRecord struct {
	Name       string             `json:"name"`
	Size       ramdisk.Size       `json:"size_bytes"`
	FS         ramdisk.FileSystem `json:"fs"`
	Hidden     bool               `json:"hidden,omitempty"`
	MountPoint string             `json:"mount_point"`
	Dev        uint64             `json:"dev"`
	// Volume is the disk's identity when the reclaim began (volumeStamp);
	// Made the identity of the disk the reclaim made again.
	Volume  string          `json:"volume,omitempty"`
	Made    string          `json:"made_volume,omitempty"`
	Marker  string          `json:"marker,omitempty"`
	Step    string          `json:"step"`
	Staging string          `json:"staging,omitempty"`
	Tree    *keeper.TreeSum `json:"tree,omitempty"`
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
	if err := atomicfile.WriteFile(p, b, 0o600); err != nil {
		return fmt.Errorf("reclaim %s: record the step %q: %w", r.Name, r.Step, err)
	}
	return nil
}

// readReclaimRecord reads the record, bounded; ok is false when there is
// none or it cannot be read. A staging folder it names outside
// DATA/reclaim, or of another disk, is dropped from it.
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
	if d, ok := stagingDisk(filepath.Base(r.Staging)); !ok || d != r.Name ||
		r.Staging != filepath.Join(s.Paths.Data, "reclaim", filepath.Base(r.Staging)) {
		r.Staging = ""
	}
	return r, true
}

// journal returns the keeper.ReclaimJournal that keeps rec up to date.
func (s *Service) journal(rec *reclaimRecord) keeper.ReclaimJournal {
	return func(st keeper.ReclaimStep) error {
		rec.Step, rec.Staging = st.Step, st.Staging
		if st.Tree.Sum != "" {
			t := st.Tree
			rec.Tree = &t
		}
		if st.Step == keeper.ReclaimMade {
			rec.Made = volumeStamp(st.Volume.MountPoint)
		}
		if err := s.writeReclaimRecord(*rec); err != nil {
			return err
		}
		if s.reclaimed != nil {
			s.reclaimed(st)
		}
		return nil
	}
}

// devOf is the device of the file system mounted at dir.
func devOf(dir string) uint64 {
	var st unix.Stat_t
	if unix.Stat(dir, &st) != nil {
		return 0
	}
	return uint64(st.Dev)
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

// stagingOf is the staging folder of a stopped reclaim: the one its record
// names, else the newest there is; "" when it is gone.
func (s *Service) stagingOf(name string, rec reclaimRecord, hasRec bool) string {
	if hasRec && rec.Staging != "" {
		if st, err := os.Lstat(rec.Staging); err == nil && st.IsDir() {
			return rec.Staging
		}
		return ""
	}
	return s.stagingFor(name)
}
