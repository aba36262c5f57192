//go:build darwin && integration

package darwin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// TestIntegrationNoExecMountPoint checks on a real Mac, without an
// administrator password, that a --noexec disk at a folder of one's choice
// refuses to run a script and is mounted where asked:
//
//	go test -tags integration -run IntegrationNoExec ./darwin/
func TestIntegrationNoExecMountPoint(t *testing.T) {
	ctx := context.Background()
	e := New(run.System())
	// Under HOME: t.TempDir is in /var/folders, a system folder to the checks.
	mp := filepath.Join(os.Getenv("HOME"), "RAMBarIT noexec")
	t.Cleanup(func() { os.Remove(mp) })
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: "RAMBarITNoExec", Size: 64 * ramdisk.MiB, FS: ramdisk.APFS, Force: true,
		Options: ramdisk.VolumeOptions{NoExec: true, MountPoint: mp}}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Eject(ctx, v, true)
	if v.MountPoint != mp {
		t.Errorf("mounted at %s, want %s", v.MountPoint, mp)
	}
	script := filepath.Join(v.MountPoint, "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho ran\n"), 0o755)
	if err := exec.Command(script).Run(); !errors.Is(err, syscall.EACCES) {
		t.Errorf("a script on the noexec disk: %v, want EACCES", err)
	}
}
