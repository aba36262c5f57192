package keeper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/tree"

	"rambar/ramdisk"
)

func reclaimFixture(t *testing.T) (*fixture, ramdisk.Volume, ramdisk.Plan, tree.Digest) {
	f := newFixture(t)
	plan := ramdisk.Plan{Name: "R", Size: 64 * ramdisk.MiB, FS: ramdisk.TmpFS}
	_, v := f.kept("R")
	richTree(t, v.MountPoint)
	return f, v, plan, digest(t, v.MountPoint)
}

func TestReclaimMovesContentsOutAndBack(t *testing.T) {
	f, v, plan, want := reclaimFixture(t)
	var phases []string
	res, err := f.k.Reclaim(f.ctx, f.eng, v, plan, nil, func(p tree.Progress) {
		if len(phases) == 0 || phases[len(phases)-1] != p.Phase {
			phases = append(phases, p.Phase)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, res.Volume.MountPoint))
	// The disk made again is the store's, as the first one was.
	if st, err := f.k.State("R"); err != nil || !f.k.Holds(res.Volume, st) {
		t.Errorf("the disk made again is not held by its store (%v)", err)
	}
	if res.Files != 5 || strings.Join(phases, ",") != "copying out,copying back" {
		t.Errorf("files %d phases %v", res.Files, phases)
	}
	if ents, _ := os.ReadDir(filepath.Join(f.k.Data, "reclaim")); len(ents) != 0 {
		t.Errorf("staging left behind: %v", ents)
	}
}

func TestReclaimRefusesBusyDiskAndChangesNothing(t *testing.T) {
	f, v, plan, want := reclaimFixture(t)
	release := f.eng.Hold(v, ramdisk.Holder{PID: 42, Command: "vim"})
	defer release()
	_, err := f.k.Reclaim(f.ctx, f.eng, v, plan, nil, nil)
	var be *ramdisk.BusyError
	if !errors.As(err, &be) || !strings.Contains(err.Error(), "vim (pid 42)") {
		t.Fatalf("err = %v, want a BusyError naming vim", err)
	}
	sameTree(t, want, digest(t, v.MountPoint))
	if ents, _ := os.ReadDir(filepath.Join(f.k.Data, "reclaim")); len(ents) != 0 {
		t.Errorf("staging left behind after a refusal: %v", ents)
	}
}

func TestReclaimFailureAfterEjectKeepsStaging(t *testing.T) {
	f, v, plan, want := reclaimFixture(t)
	f.eng.FailNext("create", errors.New("hdiutil attach: no memory"))
	_, err := f.k.Reclaim(f.ctx, f.eng, v, plan, nil, nil)
	var re *ReclaimError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "safe in "+re.Staging) {
		t.Fatalf("err = %v, want a ReclaimError naming the staging folder", err)
	}
	sameTree(t, want, digest(t, re.Staging))
}
