package selftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"rambar/disks"
	"rambar/keeper"
	"rambar/ramdisk"
)

// inPlaceFiles are what the folder a Mirror disk in place covers holds
// before the disk is made.
var inPlaceFiles = map[string]string{"index.html": "old index\n", "src/main.go": "package main\n"}

// InPlace checks a Mirror disk in place over a folder of its own under
// the home folder (on macOS, `diskutil mount -mountPoint` over a
// non-empty folder under /Users): the folder's path shows what it held,
// now on the disk; the engine knows the disk covers the folder; an edit
// made through the folder's path is written back at the eject, after
// which the folder is uncovered and holds it. The data says how the
// system lists the disk's mount point: the folder's own path, or
// another form of it (/System/Volumes/Data/Users/… on macOS). The
// folder is removed at the end (or by Cleanup, after its disk's eject).
func (r *Runner) InPlace(ctx context.Context) Check {
	const name = "mirror.inplace"
	return Timed(func() Check {
		ip, ok := r.Engine.(ramdisk.InPlacer)
		if !ok {
			return Skipf(name, "the engine cannot mount a disk over a folder")
		}
		folder, err := r.inPlaceFolder()
		if err != nil {
			return Failf(name, "%v", err)
		}
		diskName, err := r.newDisk("inplace")
		if err != nil {
			return Failf(name, "%v", err)
		}
		svc := r.Service()
		r.logf("making a Mirror disk in place over %s", folder)
		made, err := svc.Create(ctx, disks.CreateRequest{
			Input:    ramdisk.Input{Name: diskName, Hidden: r.hidden(), Force: true},
			Exact:    keptSize,
			Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder, InPlace: true},
		})
		if err != nil {
			return Failf(name, "could not make the disk over %s: %v", folder, err)
		}
		r.made = append(r.made, made.Volume)
		v := made.Volume
		if now, err := svc.Find(ctx, diskName); err == nil {
			v = now
		}
		data := map[string]any{"folder": folder, "listed_mount_point": v.MountPoint, "listed_as_folder": v.MountPoint == folder}
		if !ip.Covers(ctx, v, folder) {
			return failData(name, data, "the engine does not find the disk over %s (listed at %s)", folder, v.MountPoint)
		}
		if diff := folderHolds(folder, inPlaceFiles); diff != "" {
			return failData(name, data, "through the folder's path the disk shows %s", diff)
		}
		if err := os.WriteFile(filepath.Join(folder, "index.html"), []byte("edited in place\n"), 0o644); err != nil {
			return failData(name, data, "%v", err)
		}
		if _, err := svc.Eject(ctx, v, disks.EjectOptions{}); err != nil {
			return failData(name, data, "eject (which writes back first): %v", err)
		}
		r.unmade(v)
		if ip.Covers(ctx, v, folder) {
			return failData(name, data, "%s is still covered after the eject", folder)
		}
		want := map[string]string{"index.html": "edited in place\n", "src/main.go": inPlaceFiles["src/main.go"]}
		if diff := folderHolds(folder, want); diff != "" {
			return failData(name, data, "after the eject the folder holds %s", diff)
		}
		if err := os.RemoveAll(folder); err != nil {
			return failData(name, data, "remove %s: %v", folder, err)
		}
		r.inPlaceDir = ""
		c := Passf(name, "a Mirror disk covered %s (listed at %s), showed its files, and wrote an edit back at its eject", folder, v.MountPoint)
		c.Rule = "a Mirror disk in place over a non-empty folder under the home folder serves the folder's path, is known to cover it whatever form of the path the system lists, and writes back to it at the eject"
		c.Data = data
		return c
	})
}

// failData is a failure carrying what was found so far.
func failData(name string, data map[string]any, format string, args ...any) Check {
	c := Failf(name, format, args...)
	c.Data = data
	return c
}

// inPlaceFolder makes this run's folder for the in-place check under the
// home folder (Home, else $HOME) with inPlaceFiles in it, owned by the
// user RAMBar works for (SUDO_UID when run as root through sudo), as a
// folder in place must be.
func (r *Runner) inPlaceFolder() (string, error) {
	home := r.Home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no home folder for the in-place check: %w", err)
		}
		home = h
	}
	folder := filepath.Join(home, namePrefix+strconv.Itoa(r.PID)+" inplace")
	if err := os.Mkdir(folder, 0o755); err != nil {
		return "", fmt.Errorf("make the in-place folder: %w", err)
	}
	r.inPlaceDir = folder // Cleanup removes it if the check does not
	uid, gid := -1, -1
	if inv := ramdisk.Invoking(); inv.Behind {
		uid, gid = inv.UID, inv.GID
	}
	own := func(p string) error {
		if uid < 0 {
			return nil
		}
		return os.Lchown(p, uid, gid)
	}
	if err := own(folder); err != nil {
		return "", fmt.Errorf("give the in-place folder to uid %d: %w", uid, err)
	}
	for rel, text := range inPlaceFiles {
		p := filepath.Join(folder, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("make the in-place folder: %w", err)
		}
		if err := own(filepath.Dir(p)); err != nil {
			return "", fmt.Errorf("give the in-place folder to uid %d: %w", uid, err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", fmt.Errorf("make the in-place folder: %w", err)
		}
		if err := own(p); err != nil {
			return "", fmt.Errorf("give the in-place folder to uid %d: %w", uid, err)
		}
	}
	return folder, nil
}

// folderHolds compares the files want names (relative path → text) with
// what dir holds; "" when they match, else the first difference.
func folderHolds(dir string, want map[string]string) string {
	for rel, text := range want {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		switch {
		case err != nil:
			return fmt.Sprintf("no %s (%v)", rel, err)
		case string(b) != text:
			return fmt.Sprintf("%s as %q, want %q", rel, b, text)
		}
	}
	return ""
}
