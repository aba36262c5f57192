//go:build linux

package disks

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/mounttest"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// treeOf reads the files, folders and symlinks under root (a folder as
// "/", a link as "-> target"), never entering the folder skip.
func treeOf(t *testing.T, root, skip string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			out[rel] = "/"
			if p == skip {
				return filepath.SkipDir
			}
		case d.Type()&os.ModeSymlink != 0:
			l, err := os.Readlink(p)
			out[rel] = "-> " + l
			return err
		default:
			b, err := os.ReadFile(p)
			out[rel] = string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// wantMountRefusal checks err is the one-line refusal of verb on disk
// name naming the mount m, an ErrRefused and a *keeper.MountError.
func wantMountRefusal(t *testing.T, err error, verb, name string, m *mounttest.Mount) {
	t.Helper()
	want := fmt.Sprintf("%s %s: %s is a mount of its own (another file system): unmount it first; nothing was changed", verb, name, m.At)
	if err == nil || err.Error() != want {
		t.Fatalf("%s: %v\nwant %s", verb, err, want)
	}
	var me *keeper.MountError
	if !errors.Is(err, keeper.ErrRefused) || !errors.As(err, &me) || me.Path != m.At {
		t.Errorf("%s: %v is not a refusal naming %s", verb, err, m.At)
	}
}

// sameDisk fails t when the disk's tree changed.
func sameDisk(t *testing.T, when string, got, want map[string]string) {
	t.Helper()
	if !maps.Equal(got, want) {
		t.Fatalf("%s: the disk changed:\n got %v\nwant %v", when, got, want)
	}
}

// put writes s at p, making its folders.
func put(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, p, s)
}

func mountsService(t *testing.T) *Service {
	t.Helper()
	return &Service{Engine: linux.New(run.System(), linux.WithMountRoot(realRoot(t))), Paths: ramdisk.Paths{Data: t.TempDir()}}
}

// TestMountsInsideAKeptDisk is issue 37's first finding: a folder bind-
// mounted from outside, a second tmpfs and a loop-mounted ext4 image,
// each inside a kept disk on real tmpfs. A restore (with --force and
// without) and a reclaim are refused before anything changes, in one line
// naming the mount; an eject (plain, then forced) and a forget follow; the
// mount's own files (seen from outside the disk) are untouched every time.
func TestMountsInsideAKeptDisk(t *testing.T) {
	for _, kind := range mounttest.Kinds {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			s := mountsService(t)
			c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Work", Size: "64M"}, Contents: keeper.Options{Mode: ramdisk.Keep}})
			if err != nil {
				t.Fatal(err)
			}
			v := c.Volume
			put(t, filepath.Join(v.MountPoint, "blob"), "saved")
			put(t, filepath.Join(v.MountPoint, "src/a.go"), "package a")
			if _, err := s.Save(ctx, v, SaveOptions{}); err != nil {
				t.Fatal(err)
			}
			put(t, filepath.Join(v.MountPoint, "unsaved.txt"), "since the save")
			m := mounttest.Make(t, kind, filepath.Join(v.MountPoint, "project"))
			before := treeOf(t, v.MountPoint, m.At)

			for _, force := range []bool{true, false} {
				_, err := s.Restore(ctx, v, RestoreOptions{Force: force})
				wantMountRefusal(t, err, "restore", "Work", m)
				m.Check(t, fmt.Sprintf("restore (force %v)", force))
				sameDisk(t, "restore", treeOf(t, v.MountPoint, m.At), before)
				if s.Incomplete(v) {
					t.Fatal("a refused restore left the disk marked as restoring")
				}
			}
			_, err = s.Reclaim(ctx, v, ReclaimOptions{Force: true})
			wantMountRefusal(t, err, "reclaim", "Work", m)
			m.Check(t, "reclaim")
			sameDisk(t, "reclaim", treeOf(t, v.MountPoint, m.At), before)
			if left := s.StoppedReclaims(); len(left) != 0 {
				t.Errorf("a refused reclaim left %+v", left)
			}

			ejectAndForget(t, s, v, m)
		})
	}
}

// ejectAndForget ejects v (plain: refused while the mount is inside, the
// disk busy; then forced, a lazy unmount) and forgets it, checking the
// mounts' files after each.
func ejectAndForget(t *testing.T, s *Service, v ramdisk.Volume, ms ...*mounttest.Mount) {
	t.Helper()
	ctx := context.Background()
	check := func(when string) {
		for _, m := range ms {
			m.Check(t, when)
		}
	}
	_, err := s.Eject(ctx, v, EjectOptions{})
	var me *keeper.MountError
	switch {
	case err == nil:
		t.Error("a plain eject went through with a mount inside")
	case errors.Is(err, ramdisk.ErrBusy) && (!errors.As(err, &me) || !strings.Contains(err.Error(), ms[0].At)):
		t.Errorf("a plain eject with a mount inside: %v; want it to name %s", err, ms[0].At)
	default:
		t.Logf("a plain eject with a mount inside: %v", err)
	}
	check("eject")
	if _, err := s.Eject(ctx, v, EjectOptions{Force: true}); err != nil && !errors.Is(err, ramdisk.ErrNotFound) {
		t.Fatalf("eject --force: %v", err)
	}
	check("eject --force")
	if _, err := s.Forget(ctx, v.Name); err != nil {
		t.Fatalf("forget: %v", err)
	}
	check("forget")
}

// TestMountsInsideAMirrorDisk: the same mounts inside a Mirror disk, over
// a folder the disk loaded from its mirror folder, and inside the mirror
// folder itself. A refresh that would remove and add files under the
// covered folder, a save (the write-back), a restore and a reclaim leave
// the mounts' files alone; the restore and the reclaim are refused in one
// line naming the mount; the folder keeps what the user has there; then
// eject and forget.
func TestMountsInsideAMirrorDisk(t *testing.T) {
	for _, kind := range mounttest.Kinds {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			s := mountsService(t)
			folder := filepath.Join(t.TempDir(), "site")
			put(t, filepath.Join(folder, "index.html"), "site")
			put(t, filepath.Join(folder, "project/keep.go"), "package keep")
			c, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Site", Size: "64M"},
				Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder}})
			if err != nil {
				t.Fatal(err)
			}
			v := c.Volume
			m := mounttest.Make(t, kind, filepath.Join(v.MountPoint, "project"))

			// The mount covers the disk's project folder: a save never
			// takes that for a deletion in the folder.
			if _, err := s.Save(ctx, v, SaveOptions{}); err != nil {
				t.Logf("save with the disk's project covered: %v", err)
			}
			m.Check(t, "save")
			if b, err := os.ReadFile(filepath.Join(folder, "project/keep.go")); err != nil || string(b) != "package keep" {
				t.Errorf("the folder's project/keep.go after a save of the covered disk: %q, %v", b, err)
			}

			// The folder changes what the mount covers on the disk.
			os.Remove(filepath.Join(folder, "project/keep.go"))
			put(t, filepath.Join(folder, "project/new.go"), "package new")
			put(t, filepath.Join(folder, "index.html"), "site, edited")
			r, err := s.Refresh(ctx, v, nil)
			t.Logf("refresh: %+v, %v", r, err)
			m.Check(t, "refresh")
			if b, _ := os.ReadFile(filepath.Join(v.MountPoint, "index.html")); string(b) != "site, edited" {
				t.Errorf("the refresh did not take index.html: %q", b)
			}

			before := treeOf(t, v.MountPoint, m.At)
			_, err = s.Restore(ctx, v, RestoreOptions{Force: true})
			wantMountRefusal(t, err, "restore", "Site", m)
			m.Check(t, "restore --force")
			sameDisk(t, "restore --force", treeOf(t, v.MountPoint, m.At), before)
			_, err = s.Reclaim(ctx, v, ReclaimOptions{Force: true})
			wantMountRefusal(t, err, "reclaim", "Site", m)
			m.Check(t, "reclaim")
			sameDisk(t, "reclaim", treeOf(t, v.MountPoint, m.At), before)

			// A mount inside the mirror folder, and the disk writing where
			// it is: the write-back never reaches into it.
			mf := mounttest.Make(t, kind, filepath.Join(folder, "ext"))
			put(t, filepath.Join(v.MountPoint, "ext/from-disk.txt"), "the disk's")
			put(t, filepath.Join(v.MountPoint, "page.html"), "the disk's page")
			res, err := s.Save(ctx, v, SaveOptions{})
			t.Logf("save: %v", err)
			m.Check(t, "save")
			mf.Check(t, "save")
			if err == nil && res.Folder != nil {
				t.Logf("write-back: %+v", *res.Folder)
			}
			if b, err := os.ReadFile(filepath.Join(folder, "project/new.go")); err != nil || string(b) != "package new" {
				t.Errorf("the folder's project/new.go after the save: %q, %v", b, err)
			}

			ejectAndForget(t, s, v, m, mf)
			if b, err := os.ReadFile(filepath.Join(folder, "project/new.go")); err != nil || string(b) != "package new" {
				t.Errorf("the folder's project/new.go after the eject: %q, %v", b, err)
			}
			if b, err := os.ReadFile(filepath.Join(folder, "index.html")); err != nil || !strings.HasPrefix(string(b), "site") {
				t.Errorf("the folder's index.html after the eject: %q, %v", b, err)
			}
		})
	}
}

// TestResumeRefusesAMountInside: a reclaim killed as it began copying
// back, then something mounted over a folder of the disk made again: the
// resume would clear the disk to copy it back, so it refuses, naming the
// mount, with the staging copy kept; once unmounted, the resume finishes
// and the disk holds what it held.
func TestResumeRefusesAMountInside(t *testing.T) {
	for _, kind := range mounttest.Kinds {
		t.Run(kind, func(t *testing.T) {
			b := newReclaimBench(t, "Resume", smallTree(60))
			ctx := context.Background()
			b.killed(b.child("copying back-start"), "copying back-start")
			v, err := b.s.Find(ctx, b.name)
			if err != nil {
				t.Fatalf("the disk made again: %v", err)
			}
			m := mounttest.Make(t, kind, filepath.Join(v.MountPoint, "d3"))
			_, _, err = b.s.ResumeReclaim(ctx, b.name, nil)
			if err == nil || !strings.Contains(err.Error(), "reclaim Resume: "+m.At+" is a mount of its own (another file system): unmount it first; nothing was changed") {
				t.Fatalf("resume: %v", err)
			}
			m.Check(t, "resume")
			if left := b.s.StoppedReclaims(); len(left) != 1 {
				t.Fatalf("the staging copy: %+v", left)
			}
			if !m.Mounted(t) {
				t.Fatal("the mount is gone")
			}
			unmountAll(t, v.MountPoint)
			how, v := b.recover(ctx)
			t.Logf("resume once unmounted: %s", how)
			b.check(v, "after the unmount")
			m.Check(t, "after the resume")
		})
	}
}
