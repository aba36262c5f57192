package disks

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/run"
	"rambar/linux"
	"rambar/mirror"
	"rambar/ramdisk"
)

// TestReclaimKilledAtEachStepIsResumed kills a reclaiming process (SIGKILL)
// at each step of a reclaim of a kept disk on real tmpfs: while copying out,
// once the copy is out, before and after the eject, when copying back
// starts and when it ends. Each time the stopped reclaim is announced, ResumeReclaim
// finishes or undoes it, and the disk then holds exactly what it held, with
// its marker; the staging copy is gone only then.
func TestReclaimKilledAtEachStepIsResumed(t *testing.T) {
	root, data := realRoot(t), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	eng := linux.New(run.System(), linux.WithMountRoot(root))
	s := &Service{Engine: eng, Paths: ramdisk.Paths{Data: data}}
	ctx := context.Background()
	c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Re claim", Size: "64M"}, Contents: mirror.Options{Mode: ramdisk.Keep}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		p := filepath.Join(c.Volume.MountPoint, fmt.Sprintf("d%d/f%03d", i%7, i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(strings.Repeat("r", 500+i)), 0o640)
	}
	want, err := mirror.DigestTree(c.Volume.MountPoint, true)
	if err != nil {
		t.Fatal(err)
	}
	marker := readMarker(c.Volume.MountPoint)
	for _, at := range []string{"copying out-start", "copying out-end", "eject", "create", "copying back-start", "copying back-end"} {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), "DISKS_CHILD=reclaim", "DISKS_NAME=Re claim", "DISKS_KILL_AT="+at, "DISKS_ROOT="+root, "DISKS_DATA="+data)
		cmd.Stdin = strings.NewReader("")
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != -1 {
			t.Fatalf("%s: the child was not killed (exit %d): %s", at, code, out)
		}
		left := s.StoppedReclaims()
		if len(left) != 1 || left[0].Name != "Re claim" {
			t.Fatalf("%s: stopped reclaims %+v", at, left)
		}
		var how Resumed
		var v ramdisk.Volume
		if c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Re claim", Size: "64M"}, Contents: mirror.Options{Mode: ramdisk.Keep}}); err == nil {
			// The disk was gone: the next create put the staged contents back.
			if at != "create" || c.Reclaimed == "" {
				t.Fatalf("%s: a create went through (reclaimed %q)", at, c.Reclaimed)
			}
			how, v = "finished by create", c.Volume
		} else if how, v, err = s.ResumeReclaim(ctx, "Re claim", nil); err != nil {
			t.Fatalf("%s: resume: %v", at, err)
		}
		got, err := mirror.DigestTree(v.MountPoint, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := want.Diff(got, 5); len(diff) > 0 || len(got) != len(want) {
			t.Fatalf("%s (%s): the disk differs at %v", at, how, diff)
		}
		if m := readMarker(v.MountPoint); m != marker {
			t.Errorf("%s: marker %q, want %q", at, m, marker)
		}
		if left := s.StoppedReclaims(); len(left) != 0 {
			t.Errorf("%s: staging left: %+v", at, left)
		}
		if _, ok := s.readReclaimRecord("Re claim"); ok {
			t.Errorf("%s: record left", at)
		}
		t.Logf("%s: %s", at, how)
	}
	if _, _, err := s.ResumeReclaim(ctx, "Re claim", nil); err == nil {
		t.Error("a resume with nothing to resume succeeded")
	}
}
