package disks

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInPlaceKilledAtEachStep kills a RAMBar (SIGKILL) at each recorded
// step of a create in place (and in the middle of its load) and of an
// eject in place. Each time the folder's path shows the disk or the folder
// as of its last write-back, never an empty or half folder; the next
// RAMBar settles the record (a loaded disk ends in place, one that is gone
// leaves nothing), and its eject leaves the folder with every edit, no
// mount and no record.
func TestInPlaceKilledAtEachStep(t *testing.T) {
	f := newInPlace(t, true)
	ctx := context.Background()
	want := files(t, f.folder)
	hidden := f.s.inPlaceKey("Later")
	check := func(at string) {
		t.Helper()
		if got := files(t, f.folder); !sameFiles(got, want) {
			t.Fatalf("%s: the folder's path shows %v (covered %v), want %v", at, got, isTmpfs(f.folder), want)
		}
		t.Logf("%s: the folder's path shows the %s", at, map[bool]string{true: "disk", false: "folder"}[isTmpfs(f.folder)])
	}
	ejectAll := func(at string) {
		t.Helper()
		if err := f.s.settleInPlace(ctx, "Later"); err != nil {
			t.Fatalf("%s: settle: %v", at, err)
		}
		check(at + ", settled")
		if v, err := f.s.Find(ctx, "Later"); err == nil {
			incomplete := f.s.Incomplete(v)
			if !incomplete && f.s.InPlace(ctx, v) != f.folder {
				t.Fatalf("%s: a loaded disk is not in place once settled", at)
			}
			if _, err := f.s.Eject(ctx, v, EjectOptions{NoSave: incomplete}); err != nil {
				t.Fatalf("%s: eject: %v", at, err)
			}
		}
		check(at + ", ejected")
		if isTmpfs(f.folder) || mounted(t, hidden) {
			t.Fatalf("%s: a mount is left", at)
		}
		if _, ok := f.s.readInPlace("Later"); ok {
			t.Fatalf("%s: the record is left", at)
		}
	}
	for _, at := range []string{ipHiding, ipLoading, "load", ipCovering, ipInPlace} {
		if out, code := f.child("inplace-create", at); code != -1 {
			t.Fatalf("create, %s: the child was not killed (exit %d): %s", at, code, out)
		}
		check("create killed at " + at)
		if got := inPlaceLeftovers(t, f.s); got != (at != ipInPlace) {
			t.Errorf("create killed at %s: listed as a leftover: %v", at, got)
		}
		ejectAll("create killed at " + at)
		if inPlaceLeftovers(t, f.s) {
			t.Errorf("create killed at %s: still a leftover once settled", at)
		}
	}
	for i, at := range []string{ipUncovering, ipEjecting, ipUnhiding} {
		if out, code := f.child("inplace-create", ""); code != 0 {
			t.Fatalf("create: exit %d: %s", code, out)
		}
		edit := fmt.Sprintf("round %d", i)
		write(t, filepath.Join(f.folder, "index.html"), edit)
		want["index.html"] = edit
		if out, code := f.child("inplace-eject", at); code != -1 {
			t.Fatalf("eject, %s: the child was not killed (exit %d): %s", at, code, out)
		}
		check("eject killed at " + at)
		if !inPlaceLeftovers(t, f.s) {
			t.Errorf("eject killed at %s: not listed as a leftover", at)
		}
		ejectAll("eject killed at " + at)
	}
	// After all that, the folder mirrors in place again.
	if out, code := f.child("inplace-create", ""); code != 0 {
		t.Fatalf("create: exit %d: %s", code, out)
	}
	v, err := f.s.Find(ctx, "Later")
	if err != nil || f.s.InPlace(ctx, v) != f.folder {
		t.Fatalf("not in place again: %v", err)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestInPlaceEjectKilledAtRandom kills the eject of a disk in place
// (SIGKILL) at random moments, plain and forced, some rounds with a bind of
// the disk left elsewhere (a mount the eject cannot remove). After each,
// "Ejected" was printed only when no mount of the disk remained (its mount
// point, the cover over the folder, the hidden copy, the bind); the folder's
// path shows every edit; and the next RAMBar settles what is left.
func TestInPlaceEjectKilledAtRandom(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	want := files(t, f.folder)
	hidden := f.s.inPlaceKey("Later")
	extra := filepath.Join(filepath.Dir(f.folder), "extra")
	os.Mkdir(extra, 0o755)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for round := 0; round < 12; round++ {
		if out, code := f.child("inplace-create", ""); code != 0 {
			t.Fatalf("round %d: create: exit %d: %s", round, code, out)
		}
		v, err := f.s.Find(ctx, "Later")
		if err != nil {
			t.Fatal(err)
		}
		edit := fmt.Sprintf("round %d", round)
		write(t, filepath.Join(f.folder, "index.html"), edit)
		want["index.html"] = edit
		bound := round%3 == 2
		if bound {
			if err := syscall.Mount(v.MountPoint, extra, "", syscall.MS_BIND, ""); err != nil {
				t.Fatal(err)
			}
		}
		cmd := f.command("inplace-eject", "Later", "")
		if round%2 == 1 {
			cmd.Env = append(cmd.Env, "DISKS_FORCE=1")
		}
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		delay := time.Duration(30+rng.Intn(110)) * time.Millisecond // the child starts in about 30 ms, an eject takes about 60
		time.Sleep(delay)
		cmd.Process.Kill()
		cmd.Wait()
		at := fmt.Sprintf("round %d (bound %v, killed after %v)", round, bound, delay)
		left := mounted(t, v.MountPoint) || isTmpfs(f.folder) || mounted(t, hidden) || mounted(t, extra)
		said := strings.Contains(out.String(), "Ejected")
		t.Logf("%s: said Ejected %v, a mount left %v: %s", at, said, left, strings.TrimSpace(out.String()))
		if said && left {
			t.Fatalf("%s: \"Ejected\" was printed while a mount of the disk remained", at)
		}
		if bound && said {
			t.Fatalf("%s: \"Ejected\" was printed with a bind of the disk left", at)
		}
		if got := files(t, f.folder); !sameFiles(got, want) {
			t.Fatalf("%s: the folder's path shows %v, want %v", at, got, want)
		}
		if bound {
			syscall.Unmount(extra, syscall.MNT_DETACH) // as the refusal says: unmount what is left
		}
		if _, err := f.s.Settle(ctx, "Later"); err != nil {
			t.Fatalf("%s: settle: %v", at, err)
		}
		if v, err := f.s.Find(ctx, "Later"); err == nil {
			if _, err := f.s.Eject(ctx, v, EjectOptions{NoSave: f.s.Incomplete(v)}); err != nil {
				t.Fatalf("%s: eject: %v", at, err)
			}
		}
		if got := files(t, f.folder); !sameFiles(got, want) {
			t.Fatalf("%s, settled: the folder holds %v, want %v", at, got, want)
		}
		if isTmpfs(f.folder) || mounted(t, hidden) || mounted(t, v.MountPoint) {
			t.Fatalf("%s: a mount is left once settled", at)
		}
		if _, ok := f.s.readInPlace("Later"); ok {
			t.Fatalf("%s: the record is left once settled", at)
		}
	}
}

// TestInPlaceRacingCreates: three RAMBars put three disks in place over one
// folder at the same moment, five times: one wins, the folder is covered
// once, the others are refused and leave no disk, bind or record; the
// winner's eject leaves the folder as it was.
func TestInPlaceRacingCreates(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	want := files(t, f.folder)
	for round := 0; round < 5; round++ {
		var cmds []*exec.Cmd
		var stdins []io.WriteCloser
		for _, name := range []string{"A", "B", "C"} {
			cmd := f.command("inplace-create", name, "")
			cmd.Stdin = nil
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, stdins = append(cmds, cmd), append(stdins, in)
		}
		for _, in := range stdins {
			in.Close() // all start at once
		}
		won := ""
		for i, cmd := range cmds {
			if cmd.Wait() == nil {
				if won != "" {
					t.Fatalf("round %d: %s and %s both went through", round, won, []string{"A", "B", "C"}[i])
				}
				won = []string{"A", "B", "C"}[i]
			}
		}
		if won == "" {
			t.Fatalf("round %d: none went through", round)
		}
		n := 0
		for _, m := range mountsUnder(t, filepath.Dir(f.folder)) {
			if m == f.folder {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("round %d: %d mounts over the folder", round, n)
		}
		for _, name := range []string{"A", "B", "C"} {
			if name == won {
				continue
			}
			if _, ok := f.s.readInPlace(name); ok || mounted(t, f.s.inPlaceKey(name)) {
				t.Errorf("round %d: %s left a record or a bind", round, name)
			}
			if _, err := f.s.Find(ctx, name); err == nil {
				t.Errorf("round %d: %s left a disk", round, name)
			}
		}
		v, err := f.s.Find(ctx, won)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := files(t, f.folder); !sameFiles(got, want) || isTmpfs(f.folder) {
			t.Fatalf("round %d: the folder holds %v", round, got)
		}
	}
}

// TestInPlaceDiskUnmountedByHand: the disk unmounted from its own mount
// point by hand still covers the folder; the next eject mounts it there
// again, writes it back and ejects it, so the edit made in place reaches
// the folder.
func TestInPlaceDiskUnmountedByHand(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	c := f.create("Hand")
	write(t, filepath.Join(f.folder, "index.html"), "edited in place")
	if err := unix.Unmount(c.Volume.MountPoint, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Find(ctx, "Hand"); err == nil || !isTmpfs(f.folder) {
		t.Fatalf("the disk is still listed (%v) or the folder uncovered", err)
	}
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, f.folder)["index.html"]; got != "edited in place" || isTmpfs(f.folder) {
		t.Fatalf("after the eject the folder holds %q (covered %v)", got, isTmpfs(f.folder))
	}
	if _, ok := f.s.readInPlace("Hand"); ok {
		t.Error("the record is left")
	}
}

// TestInPlaceRecordLost: the record removed by hand while the disk covers
// its folder is written again by the next eject, which then writes back,
// uncovers and ejects as usual.
func TestInPlaceRecordLost(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	c := f.create("Lost")
	write(t, filepath.Join(f.folder, "index.html"), "edited in place")
	if err := os.Remove(f.s.inPlaceKey("Lost") + ".json"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, f.folder)["index.html"]; got != "edited in place" || isTmpfs(f.folder) {
		t.Fatalf("after the eject the folder holds %q (covered %v)", got, isTmpfs(f.folder))
	}
	if mounted(t, f.s.inPlaceKey("Lost")) {
		t.Error("the hidden copy is left")
	}
}

// TestInPlaceWriteBetweenSaveAndUncover: a file written through the
// folder's path after the eject's save, just before the disk leaves the
// folder, is written back too.
func TestInPlaceWriteBetweenSaveAndUncover(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	c := f.create("Late")
	write(t, filepath.Join(f.folder, "index.html"), "edited")
	f.s.inPlaceStep = func(step string) {
		if step == ipUncovering {
			write(t, filepath.Join(f.folder, "late.txt"), "just in time")
		}
	}
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"index.html": "edited", "src/main.go": "package main", "late.txt": "just in time"}
	if got := files(t, f.folder); !sameFiles(got, want) {
		t.Fatalf("the folder holds %v, want %v", got, want)
	}
}

// inPlaceLeftovers reports whether Leftovers lists a disk in place.
func inPlaceLeftovers(t *testing.T, s *Service) bool {
	t.Helper()
	ls, err := s.Leftovers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		if l.Kind == LeftInPlace {
			return true
		}
	}
	return false
}
