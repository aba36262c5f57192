package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/internal/diskid"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// twoDataFolders are two services over one mount root with their own data
// folders: the user's RAMBar and, say, root's under sudo (HOME=/root).
func twoDataFolders(t *testing.T) (mine, other *Service) {
	root := realRoot(t)
	e := linux.New(run.System(), linux.WithMountRoot(root))
	mine = &Service{Engine: e, Paths: ramdisk.Paths{Data: filepath.Join(t.TempDir(), "user-data")}}
	other = &Service{Engine: e, Paths: ramdisk.Paths{Data: filepath.Join(t.TempDir(), "root-data")}}
	t.Cleanup(func() { ejectUnder(t, e, root) })
	return mine, other
}

func snapshots(t *testing.T, s *Service, name string) int {
	t.Helper()
	k, _ := s.Keeper()
	snaps, err := k.Snapshots(name)
	if err != nil {
		t.Fatal(err)
	}
	return len(snaps)
}

// TestEjectByAnotherDataFolder: a kept disk ejected by a RAMBar with
// another data folder is refused without --force, naming the data folder
// and user that made it; the disk stays, unsaved work and all. Its own
// RAMBar ejects it with a save; and --force from the other ejects it.
func TestEjectByAnotherDataFolder(t *testing.T) {
	ctx := context.Background()
	mine, other := twoDataFolders(t)
	v := keptDisk(t, mine, "Work", 0)
	os.WriteFile(filepath.Join(v.MountPoint, "draft"), []byte("unsaved"), 0o600)
	for _, o := range []EjectOptions{{}, {NoSave: true}} {
		_, err := other.Eject(ctx, v, o)
		if !errors.Is(err, ErrNotOurs) || !errors.Is(err, keeper.ErrRefused) {
			t.Fatalf("eject %+v by another data folder: %v, want ErrNotOurs", o, err)
		}
		for _, w := range []string{mine.Paths.Data, "uid 0", "--force"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("the refusal does not name %q: %v", w, err)
			}
		}
	}
	if other.Mine(v) || !mine.Mine(v) {
		t.Error("Mine: wrong data folder")
	}
	if _, err := other.Find(ctx, "Work"); err != nil {
		t.Fatalf("the disk went: %v", err)
	}
	ej, err := mine.Eject(ctx, v, EjectOptions{})
	if err != nil || ej.Saved == nil || ej.Saved.Unchanged {
		t.Fatalf("its own eject: %+v %v, want a save", ej, err)
	}
	v = keptDisk(t, mine, "Work", 0)
	if got, _ := os.ReadFile(filepath.Join(v.MountPoint, "draft")); string(got) != "unsaved" {
		t.Errorf("restored %q", got)
	}
	if _, err := other.Eject(ctx, v, EjectOptions{Force: true}); err != nil {
		t.Fatalf("eject --force by the other: %v", err)
	}
	if _, ok := diskid.NewRegistry(other.Paths.Data).Get("Work"); ok {
		t.Error("the other data folder recorded the disk it ejected")
	}
}

// TestEjectOfAnotherUsersDisk: a disk marked by another user's RAMBar (uid
// 65534) is refused by name and user; a disk nobody marked or recorded (a
// hand-made tmpfs) is refused as unknown; both go with --force.
func TestEjectOfAnotherUsersDisk(t *testing.T) {
	ctx := context.Background()
	mine, _ := twoDataFolders(t)
	root := filepath.Dir(keptDisk(t, mine, "Mine", 0).MountPoint)
	for _, name := range []string{"Nobody's", "Hand made"} {
		mp := filepath.Join(root, name)
		os.MkdirAll(mp, 0o755)
		if err := syscall.Mount("tmpfs", mp, "tmpfs", 0, "size=4m"); err != nil {
			t.Fatal(err)
		}
	}
	m, err := diskid.NewMark(filepath.Join(root, "Nobody's"), "/var/lib/nobody/rambar", "Nobody's", diskid.KindPlain, "")
	if err != nil {
		t.Fatal(err)
	}
	m.UID, m.User = 65534, "nobody"
	if err := diskid.WriteMark(filepath.Join(root, "Nobody's"), m); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"Nobody's":  {"another RAMBar's disk", "/var/lib/nobody/rambar", "nobody (uid 65534)"},
		"Hand made": {"is not a disk this RAMBar knows", mine.Paths.Data},
	} {
		v, err := mine.Find(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		_, err = mine.Eject(ctx, v, EjectOptions{})
		if !errors.Is(err, ErrNotOurs) {
			t.Fatalf("%s: %v, want ErrNotOurs", name, err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the refusal does not say %q: %v", name, w, err)
			}
		}
		if _, err := mine.Eject(ctx, v, EjectOptions{Force: true}); err != nil {
			t.Errorf("%s: --force: %v", name, err)
		}
	}
}

// TestSavedAfterTheMarkerGoes: a kept disk tidied at its root (rm -rf of
// everything, git clean -fdx of a repository there) is still saved by
// autosave and the save at quit (SaveAll), and by eject.
func TestSavedAfterTheMarkerGoes(t *testing.T) {
	ctx := context.Background()
	mine, _ := twoDataFolders(t)
	v := keptDisk(t, mine, "Work", 0)
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", v.MountPoint}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(v.MountPoint, "build.o"), []byte("x"), 0o600)
	tidy := []func(){
		func() { git("clean", "-fdxq") },
		func() {
			ents, _ := os.ReadDir(v.MountPoint)
			for _, e := range ents {
				os.RemoveAll(filepath.Join(v.MountPoint, e.Name()))
			}
		},
	}
	for i, do := range tidy {
		do()
		os.WriteFile(filepath.Join(v.MountPoint, "work"), []byte(fmt.Sprint("round ", i)), 0o600)
		before := snapshots(t, mine, "Work")
		saved := 0
		due := func(keeper.State) bool { return true } // autosave's question; nil is the save at quit
		if i == 1 {
			due = nil
		}
		err := mine.SaveAll(ctx, due, func(name string, r keeper.Result, err error) {
			if name == "Work" && err == nil && !r.Unchanged {
				saved++
			}
		})
		if err != nil || saved != 1 || snapshots(t, mine, "Work") != before+1 {
			t.Fatalf("round %d: SaveAll %v, saved %d, snapshots %d -> %d", i, err, saved, before, snapshots(t, mine, "Work"))
		}
	}
	os.RemoveAll(filepath.Join(v.MountPoint, "work"))
	os.WriteFile(filepath.Join(v.MountPoint, "last"), []byte("before eject"), 0o600)
	if ej, err := mine.Eject(ctx, v, EjectOptions{}); err != nil || ej.Saved == nil || ej.Saved.Unchanged {
		t.Fatalf("eject: %+v %v, want a save", ej, err)
	}
}

// TestTryNamesAndTryCleanup: the name form of try's disks is refused for
// other disks; try's cleanup ejects a killed try's own disk, and never a
// kept disk, a Mirror disk or an unknown disk that only carries such a
// name (made by an older RAMBar or by hand).
func TestTryNamesAndTryCleanup(t *testing.T) {
	ctx := context.Background()
	mine, _ := twoDataFolders(t)
	for _, n := range []string{"RAMBar Try 5", "rambar try 123", "RAMBAR TRY 0042"} {
		if _, err := mine.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: n, Size: "16M"}}); !errors.Is(err, ramdisk.ErrName) {
			t.Errorf("create %q: %v, want ErrName", n, err)
		}
	}
	if _, err := mine.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "RAMBar Try Out", Size: "16M"}}); err != nil {
		t.Errorf("a name that only starts like try's: %v", err)
	}
	dead := exec.Command("true")
	dead.Run()
	pid := dead.ProcessState.Pid()
	k, _ := mine.Keeper()
	f, err := mine.Facts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string) ramdisk.Volume {
		p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: 16 * ramdisk.MiB}, f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := mine.Engine.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// A kept disk named as try names its disks (an older RAMBar allowed it).
	kept := mk(TryDiskName(pid))
	if _, err := k.Setup(kept.Name, keeper.Options{Mode: ramdisk.Keep}); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Load(ctx, kept, nil); err != nil {
		t.Fatal(err)
	}
	unknown := mk(TryDiskName(pid + 1000000))
	// A killed try's own disk.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "DISKS_CHILD=try-disk", "DISKS_ROOT="+filepath.Dir(kept.MountPoint), "DISKS_DATA="+mine.Paths.Data)
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the try child was not killed: %v %s", cmd.ProcessState, out)
	}
	tried := TryDiskName(cmd.ProcessState.Pid())
	if _, err := mine.Find(ctx, tried); err != nil {
		t.Fatalf("the killed try left no disk: %v", err)
	}
	lefts, _ := mine.Leftovers(ctx)
	var listed []string
	for _, l := range lefts {
		if l.Kind == LeftTryDisk {
			listed = append(listed, l.Name)
		}
	}
	if len(listed) != 1 || listed[0] != tried {
		t.Errorf("leftover try disks %v, want only %s", listed, tried)
	}
	gone, err := mine.CleanTryDisks(ctx)
	if err != nil || len(gone) != 1 || gone[0] != tried {
		t.Fatalf("cleaned %v %v, want only %s", gone, err, tried)
	}
	for _, n := range []string{kept.Name, unknown.Name, "RAMBar Try Out"} {
		if _, err := mine.Find(ctx, n); err != nil {
			t.Errorf("%s was ejected by try's cleanup: %v", n, err)
		}
	}
	if _, ok := diskid.NewRegistry(mine.Paths.Data).Get(tried); ok {
		t.Error("the cleaned try disk is still recorded")
	}
}
