package disks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

func TestLockName(t *testing.T) {
	long := strings.Repeat("é", 120)
	for _, tc := range []struct {
		name, want string
	}{
		{"Scratch", "scratch.lock"},
		{"SCRATCH", "scratch.lock"}, // the names macOS treats as one share a lock
		{"RAM Disk 2", "ram%20disk%202.lock"},
		{"a.b", "a%2Eb.lock"},
		{"..", "%2E%2E.lock"},
		{"Ünïcødé ✓", "%C3%BCn%C3%AFc%C3%B8d%C3%A9%20%E2%9C%93.lock"},
		{"%2E", "%252e.lock"},
	} {
		if got := lockName(tc.name); got != tc.want {
			t.Errorf("lockName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	got := lockName(long)
	if len(got) > 200 || strings.ContainsAny(got, "/\x00") {
		t.Errorf("lockName of a long name = %q (%d bytes)", got, len(got))
	}
	if lockName(long) == lockName(long+"x") {
		t.Error("two long names share a lock file")
	}
}

func TestLockWaitsThenFailsBusy(t *testing.T) {
	s := &Service{Paths: ramdisk.Paths{Data: t.TempDir()}, LockWait: 100 * time.Millisecond}
	ctx := context.Background()
	release, err := s.lock(ctx, "Work", "saving")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.lock(ctx, "work", "ejecting")
	if !errors.Is(err, ramdisk.ErrBusy) {
		t.Fatalf("second lock: %v, want ErrBusy", err)
	}
	want := "another RAMBar (pid " + strconv.Itoa(os.Getpid()) + ") is saving work"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("busy error %q does not say %q", err, want)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	s.LockWait = time.Hour
	if _, err := s.lock(cctx, "Work", "ejecting"); !errors.Is(err, context.Canceled) {
		t.Errorf("lock with a cancelled context: %v", err)
	}
	// Another disk is not held up.
	other, err := s.lock(ctx, "Play", "creating")
	if err != nil {
		t.Fatal(err)
	}
	other()
	release()
	again, err := s.lock(ctx, "WORK", "restoring")
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	again()
	// The lock files stay (removing one could let two holders in).
	ents, _ := os.ReadDir(filepath.Join(s.Paths.Data, "locks"))
	if len(ents) != 2 {
		t.Errorf("lock files: %v", ents)
	}
}
