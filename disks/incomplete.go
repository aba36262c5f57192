package disks

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/internal/atomicfile"
	"rambar/ramdisk"
)

// ErrIncomplete means the disk's restore (or load) did not finish, so it holds
// only part of its saved state; saving it would replace a whole saved copy
// with a partial one. Save with Force, or eject with Force (the saved copy
// is kept) to go on.
var ErrIncomplete = errors.New("restore incomplete")

// Only a disk whose restore or load finished may be saved over its saved
// state. While a create fills a kept or mirrored disk, and while a restore
// runs, disks keeps a record of it in DATA/restoring/KEY.json (KEY as for
// the lock); the record is removed only once the restore has finished. A
// disk mounted at the recorded mount point while a record exists is
// "incomplete": a RAMBar was stopped (kill -9, a crash, a power cut of the
// tool) in the middle, and save, eject and autosave refuse to replace the
// saved copy with it.

// restoreRecord is what is kept about a restore while it runs.
type restoreRecord struct {
	Name       string    `json:"name"`
	MountPoint string    `json:"mount_point"`
	PID        int       `json:"pid"`
	Started    time.Time `json:"started"`
}

// restoringRecords is the folder of restore records in the data folder.
const restoringRecords = "restoring"

// markRestoring records that a restore of the disk at mountPoint begins.
func (s *Service) markRestoring(name, mountPoint string) error {
	if s.Paths.Data == "" {
		return nil
	}
	p, _ := s.recordPaths(restoringRecords, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("restore %s: %w", name, err)
	}
	b, _ := json.Marshal(restoreRecord{Name: name, MountPoint: mountPoint, PID: os.Getpid(), Started: time.Now().UTC()})
	if err := atomicfile.WriteFile(p, b, 0o600); err != nil {
		return fmt.Errorf("restore %s: note it in %s: %w", name, p, err)
	}
	s.dropLegacy(restoringRecords, name)
	return nil
}

// restored removes the record: the restore finished (or the partial disk
// is gone and the saved copy was kept).
func (s *Service) restored(name string) {
	if s.Paths.Data != "" {
		s.removeRecord(restoringRecords, name)
	}
}

// record reads a disk's restore record; ok is false when there is none. The
// file is RAMBar's, but read as untrusted: bounded, and a damaged one counts
// as a restore that did not finish.
func (s *Service) record(name string) (restoreRecord, bool) {
	if s.Paths.Data == "" {
		return restoreRecord{}, false
	}
	b, ok := s.readRecord(restoringRecords, name, 64<<10)
	if !ok {
		return restoreRecord{}, false
	}
	var r restoreRecord
	if json.Unmarshal(b, &r) != nil {
		return restoreRecord{Name: name}, true
	}
	return r, true
}

// Incomplete reports whether v holds only part of its saved state: its
// restore or load began and never finished.
func (s *Service) Incomplete(v ramdisk.Volume) bool {
	r, ok := s.record(v.Name)
	return ok && (r.MountPoint == "" || r.MountPoint == v.MountPoint)
}

// incompleteErr is the refusal to save an incomplete disk.
// verb, when set, starts the message ("save Work: refused: …").
func incompleteErr(verb string, v ramdisk.Volume) error {
	if verb != "" {
		verb += " " + v.Name + ": "
	}
	return fmt.Errorf("%srefused: %w: RAMBar was stopped while restoring it, so it holds only part of its saved state, "+
		"and saving it would replace the whole saved copy; finish the restore with 'rambar restore %s --force', "+
		"or eject it with 'rambar eject %s --force' (the saved copy is kept)", verb, ErrIncomplete, v.Name, v.Name)
}
