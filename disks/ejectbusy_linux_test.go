package disks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

// TestEjectWaitsForItsOwnMoments: a disk held for a moment by the process
// that ejects it (the agent's change feed reading a burst of events, a
// save's hold being let go: seen under load as "busy, held by rambar") is
// ejected once it lets go; a disk held by this process for good, or by any
// other process, is busy, naming the holder.
func TestEjectWaitsForItsOwnMoments(t *testing.T) {
	tests := []struct {
		name     string
		hold     func(t *testing.T, dir string) (release func())
		wantBusy bool
	}{
		{"held by this process for 0.2 s", func(t *testing.T, dir string) func() {
			f := openIn(t, dir)
			time.AfterFunc(200*time.Millisecond, func() { f.Close() })
			return func() {}
		}, false},
		{"held by this process throughout", func(t *testing.T, dir string) func() {
			f := openIn(t, dir)
			return func() { f.Close() }
		}, true},
		{"held by another process", func(t *testing.T, dir string) func() {
			cmd := exec.Command("sleep", "30")
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			return func() { cmd.Process.Kill(); cmd.Wait() }
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{Engine: linux.New(run.System(), linux.WithMountRoot(realRoot(t))), Paths: ramdiskPaths(t)}
			c, err := s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: "Held", Size: "16M"}})
			if err != nil {
				t.Fatal(err)
			}
			v := listed(t, s, c.Volume)
			release := tt.hold(t, v.MountPoint)
			_, err = s.Eject(context.Background(), v, EjectOptions{})
			release()
			var busy *ramdisk.BusyError
			if got := errors.As(err, &busy); got != tt.wantBusy {
				t.Fatalf("eject: %v; want busy: %v", err, tt.wantBusy)
			}
			if tt.wantBusy {
				if len(busy.Holders) == 0 {
					t.Errorf("busy without its holder: %v", err)
				}
				if _, err := s.Eject(context.Background(), v, EjectOptions{}); err != nil {
					t.Errorf("eject once let go: %v", err)
				}
			}
		})
	}
}

// openIn opens a new file in dir, held by this process until closed.
func openIn(t *testing.T, dir string) *os.File {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "held"))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
