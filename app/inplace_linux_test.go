//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rambar/tree"
)

// inPlaceCLI is a CLI whose mounts over folder and under its home are
// lazily unmounted at the end, whatever a test left.
func inPlaceCLI(t *testing.T, folder string) *cli {
	c := newCLI(t)
	t.Cleanup(func() {
		b, _ := os.ReadFile("/proc/self/mountinfo")
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 4 && (f[4] == folder || strings.HasPrefix(f[4], c.home+"/")) {
				unix.Unmount(f[4], unix.MNT_DETACH)
			}
		}
	})
	return c
}

// covered reports whether something is mounted at dir.
func covered(dir string) bool {
	var st, parent unix.Stat_t
	return unix.Stat(dir, &st) == nil && unix.Stat(filepath.Dir(dir), &parent) == nil && st.Dev != parent.Dev
}

// TestCLIMirrorInPlace: create --in-place runs the folder's own path from
// memory, list and info say so (info --json in_place), a shell inside the
// folder blocks the eject, named, with the way to write back now; save
// writes back; eject leaves the folder with the edit. --in-place without
// --mirror, and presets: stored, listed and cleared.
func TestCLIMirrorInPlace(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "site")
	c := inPlaceCLI(t, folder)
	put(t, folder, "index.html", "v1")
	if _, errOut, code := c.run("create", "Site", "32M", "--in-place"); code != exitUsage || !strings.Contains(errOut, "--in-place goes with --mirror") {
		t.Errorf("--in-place without --mirror: exit %d %s", code, errOut)
	}
	out, errOut, code := c.run("create", "Site", "32M", "--mirror", folder, "--in-place")
	if code != 0 || !strings.Contains(out, "In place at "+folder) {
		t.Fatalf("create --in-place: exit %d\n%s%s", code, out, errOut)
	}
	if !covered(folder) {
		t.Fatal("the folder is not covered")
	}
	if out, _, _ := c.run("list"); !strings.Contains(out, "in place at "+folder) {
		t.Errorf("list does not say in place:\n%s", out)
	}
	if out, _, _ := c.run("info", "Site"); !strings.Contains(out, "in place at "+folder) {
		t.Errorf("info does not say in place:\n%s", out)
	}
	var doc struct {
		InPlace string `json:"in_place"`
	}
	if out, _, _ := c.run("info", "Site", "--json"); json.Unmarshal([]byte(out), &doc) != nil || doc.InPlace != folder {
		t.Errorf("info --json in_place %q:\n%s", doc.InPlace, out)
	}
	put(t, folder, "index.html", "v2")
	sleep := exec.Command("sleep", "600")
	sleep.Dir = folder
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	_, errOut, code = c.run("eject", "Site")
	if code != exitBusy || !strings.Contains(errOut, fmt.Sprintf("sleep (pid %d)", sleep.Process.Pid)) || !strings.Contains(errOut, "'rambar save Site' writes it back now") {
		t.Errorf("eject with a shell inside: exit %d %s", code, errOut)
	}
	if _, errOut, code := c.run("save", "Site"); code != 0 {
		t.Fatalf("save: %d %s", code, errOut)
	}
	sleep.Process.Kill()
	sleep.Wait()
	if _, errOut, code := c.run("eject", "Site"); code != 0 {
		t.Fatalf("eject: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(folder, "index.html")); string(b) != "v2" || covered(folder) {
		t.Errorf("after the eject the folder holds %q (covered %v)", b, covered(folder))
	}

	if _, errOut, code := c.run("preset", "add", "P", "1G", "--in-place"); code != exitUsage {
		t.Errorf("preset --in-place without a mirror folder: exit %d %s", code, errOut)
	}
	if _, errOut, code := c.run("preset", "add", "P", "1G", "--mirror", folder, "--in-place"); code != 0 {
		t.Fatalf("preset add --in-place: %d %s", code, errOut)
	}
	var presets struct {
		Presets []struct {
			InPlace bool `json:"in_place"`
		} `json:"presets"`
	}
	out, _, _ = c.run("preset", "list", "--json")
	if json.Unmarshal([]byte(out), &presets) != nil || len(presets.Presets) != 1 || !presets.Presets[0].InPlace {
		t.Errorf("preset list --json:\n%s", out)
	}
	if out, _, _ := c.run("preset", "list"); !strings.Contains(out, "in place") {
		t.Errorf("preset list does not say in place:\n%s", out)
	}
	if _, errOut, code := c.run("preset", "mount", "P"); code != 0 || !covered(folder) {
		t.Fatalf("preset mount: %d %s (covered %v)", code, errOut, covered(folder))
	}
	if _, errOut, code := c.run("eject", "P"); code != 0 || covered(folder) {
		t.Fatalf("eject P: %d %s", code, errOut)
	}
	if _, errOut, code := c.run("preset", "edit", "P", "--no-in-place"); code != 0 {
		t.Fatalf("preset edit --no-in-place: %d %s", code, errOut)
	}
	out, _, _ = c.run("preset", "list", "--json")
	presets.Presets = nil
	if json.Unmarshal([]byte(out), &presets) != nil || len(presets.Presets) != 1 || presets.Presets[0].InPlace {
		t.Errorf("preset edit --no-in-place:\n%s", out)
	}
}

// TestCLIMirrorInPlaceKilledAtRandom kills `create --in-place` and
// `eject` of a disk in place at random moments: the folder's path always
// shows the folder's files whole (the disk's or the folder's own), and the
// next eject leaves the folder uncovered with all of them.
func TestCLIMirrorInPlaceKilledAtRandom(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "site")
	c := inPlaceCLI(t, folder)
	for i := 0; i < 600; i++ {
		put(t, folder, fmt.Sprintf("d%d/f%d", i%13, i), strings.Repeat("z", i*7))
	}
	want, err := tree.DigestOf(folder, false)
	if err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		got, err := tree.DigestOf(folder, false)
		if err != nil {
			t.Fatal(err)
		}
		delete(got, tree.MarkerName)
		if d := want.Diff(got, 5); len(d) > 0 || len(got) != len(want) {
			t.Fatalf("%s: the folder's path differs at %v (%d of %d paths, covered %v)", when, d, len(got), len(want), covered(folder))
		}
	}
	start := time.Now()
	c.run("create", "Site", "64M", "--mirror", folder, "--in-place")
	full := time.Since(start)
	c.run("eject", "Site")
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	for i := 0; i < 10; i++ {
		verb := []string{"create", "Site", "64M", "--mirror", folder, "--in-place"}
		if i%2 == 1 {
			c.run(verb...)
			verb = []string{"eject", "Site"}
		}
		cmd := exec.Command(c.bin, verb...)
		cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(r.Int63n(int64(full))))
		cmd.Process.Kill()
		cmd.Wait()
		check(fmt.Sprintf("round %d, %s killed", i, verb[0]))
		if _, errOut, code := c.run("eject", "Site"); code != 0 && code != exitNotFound {
			if _, errOut2, code := c.run("eject", "Site", "--no-save"); code != 0 {
				t.Fatalf("round %d: eject: %s; --no-save: %d %s", i, errOut, code, errOut2)
			}
		}
		check(fmt.Sprintf("round %d, ejected", i))
		if covered(folder) {
			t.Fatalf("round %d: the folder is still covered", i)
		}
	}
}
