package disks

import (
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// TestRecordsKeepLetterCase: the restore records of Work and work (two
// disks on Linux) are two files; finishing one never drops the other's, so
// a disk whose restore did not finish stays refused for saving. A record an
// older RAMBar wrote under the folded name is still read for the disk whose
// exact name it holds (and for none other), a damaged one counts, and it is
// removed when the disk's record is written again.
func TestRecordsKeepLetterCase(t *testing.T) {
	s := &Service{Paths: ramdisk.Paths{Data: t.TempDir()}}
	work := ramdisk.Volume{Name: "Work", MountPoint: "/mnt/rambar/Work"}
	lower := ramdisk.Volume{Name: "work", MountPoint: "/mnt/rambar/work"}
	if err := s.markRestoring(work.Name, work.MountPoint); err != nil {
		t.Fatal(err)
	}
	if err := s.markRestoring(lower.Name, lower.MountPoint); err != nil {
		t.Fatal(err)
	}
	s.restored(lower.Name)
	if !s.Incomplete(work) || s.Incomplete(lower) {
		t.Fatalf("after work's restore finished: Work incomplete %v (want true), work %v (want false)", s.Incomplete(work), s.Incomplete(lower))
	}
	s.restored(work.Name)
	if s.Incomplete(work) {
		t.Fatal("Work is still incomplete after its restore finished")
	}

	legacy := filepath.Join(s.Paths.Data, "restoring", "work.json")
	for _, c := range []struct {
		name, record string
		work, lower  bool // Incomplete(work), Incomplete(lower)
	}{
		{"older record of Work", `{"name":"Work","mount_point":"/mnt/rambar/Work"}`, true, false},
		{"older record of work", `{"name":"work","mount_point":"/mnt/rambar/work"}`, false, true},
		{"damaged older record", `{"name":`, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.WriteFile(legacy, []byte(c.record), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := s.Incomplete(work); got != c.work {
				t.Errorf("Incomplete(Work) = %v, want %v", got, c.work)
			}
			if got := s.Incomplete(lower); got != c.lower {
				t.Errorf("Incomplete(work) = %v, want %v", got, c.lower)
			}
			os.Remove(legacy)
		})
	}
	os.WriteFile(legacy, []byte(`{"name":"Work","mount_point":"/mnt/rambar/Work"}`), 0o600)
	if err := s.markRestoring(work.Name, work.MountPoint); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("Work's older record is still there after its new one was written: %v", err)
	}
	s.restored(work.Name)
	if s.Incomplete(work) {
		t.Error("Work is incomplete after its restore finished")
	}
}
