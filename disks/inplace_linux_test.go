package disks

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// inPlaceFixture is a real Linux engine under a private mount root, a data
// folder, and a Mirror folder with a few files, all under one temporary
// folder whose mounts are lazily unmounted at the end.
type inPlaceFixture struct {
	t            *testing.T
	s            *Service
	root, folder string
}

func newInPlace(t *testing.T, shared bool) *inPlaceFixture {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts real tmpfs: run it as root (CI does)")
	}
	base := t.TempDir()
	t.Cleanup(func() { unmountAll(t, base) })
	work := filepath.Join(base, "work")
	os.Mkdir(work, 0o755)
	if shared {
		// The folder's file system shares its mounts (as / does under
		// systemd): the mount over the folder must not reach its hidden copy.
		if err := syscall.Mount("parent", work, "tmpfs", 0, "size=64m"); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mount("", work, "", syscall.MS_SHARED, ""); err != nil {
			t.Fatal(err)
		}
	}
	f := &inPlaceFixture{t: t, root: filepath.Join(base, "mnt"), folder: filepath.Join(work, "site")}
	os.MkdirAll(filepath.Join(f.folder, "src"), 0o755)
	write(t, filepath.Join(f.folder, "index.html"), "old index")
	write(t, filepath.Join(f.folder, "src", "main.go"), "package main")
	eng := linux.New(run.System(), linux.WithMountRoot(f.root))
	f.s = &Service{Engine: eng, Paths: ramdisk.Paths{Data: filepath.Join(base, "data")}}
	return f
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *inPlaceFixture) create(name string) Created {
	f.t.Helper()
	c, err := f.s.Create(context.Background(), CreateRequest{Input: ramdisk.Input{Name: name, Size: "64M"},
		Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: f.folder, InPlace: true}})
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// files reads every regular file under dir (the disk's marker left out).
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() != keeper.MarkerName {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// isTmpfs reports whether dir's path serves a tmpfs mounted there.
func isTmpfs(dir string) bool {
	var st, parent unix.Stat_t
	return unix.Stat(dir, &st) == nil && unix.Stat(filepath.Dir(dir), &parent) == nil && st.Dev != parent.Dev
}

// mounted reports whether something is mounted at dir.
func mounted(t *testing.T, dir string) bool {
	t.Helper()
	for _, m := range mountsUnder(t, filepath.Dir(dir)) {
		if m == dir {
			return true
		}
	}
	return false
}

// TestInPlaceLoadEditSaveEject: a Mirror disk in place serves the folder's
// own path; an edit through that path reaches the folder's hidden copy at
// a save, and after the eject the folder holds it, with the hidden copy and
// the record gone. Run on a private and on a shared parent mount.
func TestInPlaceLoadEditSaveEject(t *testing.T) {
	for _, shared := range []bool{false, true} {
		f := newInPlace(t, shared)
		ctx := context.Background()
		c := f.create("Site")
		if !isTmpfs(f.folder) {
			t.Fatalf("shared %v: %s is not served by the disk after create", shared, f.folder)
		}
		if got := f.s.InPlace(ctx, c.Volume); got != f.folder {
			t.Errorf("InPlace = %q, want %q", got, f.folder)
		}
		hidden := f.s.inPlaceKey("Site")
		// Only RAMBar's user reaches the folder beneath the disk.
		if fi, err := os.Stat(filepath.Dir(hidden)); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v, want mode 0700", filepath.Dir(hidden), err)
		}
		if got := files(t, f.folder); got["index.html"] != "old index" || got["src/main.go"] != "package main" {
			t.Fatalf("the disk over the folder holds %v", got)
		}
		write(t, filepath.Join(f.folder, "index.html"), "new index")
		write(t, filepath.Join(f.folder, "src", "added.go"), "package added")
		if b, _ := os.ReadFile(filepath.Join(hidden, "index.html")); string(b) != "old index" {
			t.Fatalf("shared %v: the hidden copy shows %q before the save (the disk reached it)", shared, b)
		}
		if _, err := f.s.Save(ctx, c.Volume, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := files(t, hidden); got["index.html"] != "new index" || got["src/added.go"] != "package added" {
			t.Fatalf("the hidden copy after the save: %v", got)
		}
		write(t, filepath.Join(f.folder, "late.txt"), "written after the save")
		if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
			t.Fatal(err)
		}
		if isTmpfs(f.folder) {
			t.Fatalf("shared %v: the folder is still covered after the eject", shared)
		}
		want := map[string]string{"index.html": "new index", "src/main.go": "package main", "src/added.go": "package added", "late.txt": "written after the save"}
		if got := files(t, f.folder); !sameFiles(got, want) {
			t.Fatalf("the folder after the eject: %v, want %v", got, want)
		}
		if mounted(t, hidden) || mounted(t, c.Volume.MountPoint) {
			t.Error("a mount is left after the eject")
		}
		if _, ok := f.s.readInPlace("Site"); ok {
			t.Error("the in-place record is left after the eject")
		}
	}
}

// TestInPlaceShellBlocksEject: a process whose working folder is inside the
// folder keeps the disk in place; the eject names it, says how to write
// back now, and changes nothing; once it is gone the eject goes through.
func TestInPlaceShellBlocksEject(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	c := f.create("Busy")
	sleep := exec.Command("sleep", "600")
	sleep.Dir = filepath.Join(f.folder, "src")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	write(t, filepath.Join(f.folder, "src", "edit.go"), "package edit")
	_, err := f.s.Eject(ctx, c.Volume, EjectOptions{})
	var be *ramdisk.BusyError
	if !errors.As(err, &be) {
		t.Fatalf("eject with a shell inside: %v, want a BusyError", err)
	}
	named := false
	for _, h := range be.Holders {
		named = named || h.PID == sleep.Process.Pid && h.Command == "sleep"
	}
	if !named || !strings.Contains(err.Error(), "rambar save Busy") {
		t.Errorf("the refusal does not name sleep (pid %d) or say how to write back: %v", sleep.Process.Pid, err)
	}
	if !isTmpfs(f.folder) || f.s.InPlace(ctx, c.Volume) != f.folder {
		t.Fatal("the busy eject uncovered the folder")
	}
	if r, _ := f.s.readInPlace("Busy"); r.Step != ipInPlace {
		t.Errorf("record step %q after the busy eject", r.Step)
	}
	// The write-back ran before the refusal: the hidden copy has the edit.
	if b, _ := os.ReadFile(filepath.Join(f.s.inPlaceKey("Busy"), "src", "edit.go")); string(b) != "package edit" {
		t.Errorf("the hidden copy holds %q", b)
	}
	sleep.Process.Kill()
	sleep.Wait()
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, f.folder)["src/edit.go"]; got != "package edit" {
		t.Errorf("the folder holds %q after the eject", got)
	}
}

// TestInPlaceSimulatedReboot: both mounts lazily unmounted and the records
// and locks removed, as a restart leaves them: the folder shows its last
// write-back, not the unsaved edit, and can be mirrored in place again.
func TestInPlaceSimulatedReboot(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	c := f.create("Boot")
	write(t, filepath.Join(f.folder, "index.html"), "saved index")
	if _, err := f.s.Save(ctx, c.Volume, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(f.folder, "index.html"), "unsaved index")
	for _, m := range []string{f.folder, c.Volume.MountPoint, f.s.inPlaceKey("Boot")} {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			t.Fatalf("unmount %s: %v", m, err)
		}
	}
	for _, d := range []string{"inplace/*.json", "locks/*", "restoring/*", "claims/*.json"} {
		ms, _ := filepath.Glob(filepath.Join(f.s.Paths.Data, d))
		for _, m := range ms {
			os.Remove(m)
		}
	}
	want := map[string]string{"index.html": "saved index", "src/main.go": "package main"}
	if got := files(t, f.folder); !sameFiles(got, want) {
		t.Fatalf("after the reboot the folder holds %v, want %v", got, want)
	}
	c = f.create("Boot")
	if got := files(t, f.folder); !sameFiles(got, want) || !isTmpfs(f.folder) {
		t.Fatalf("mirrored in place again, the folder's path shows %v", got)
	}
	if _, err := f.s.Eject(ctx, c.Volume, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestInPlaceRestartedRAMBarWritesBack: a disk put in place by one process
// is edited, saved and ejected by another (a RAMBar started later).
func TestInPlaceRestartedRAMBarWritesBack(t *testing.T) {
	f := newInPlace(t, false)
	ctx := context.Background()
	if out, code := f.child("inplace-create", ""); code != 0 {
		t.Fatalf("child create: exit %d: %s", code, out)
	}
	v, err := f.s.Find(ctx, "Later")
	if err != nil {
		t.Fatal(err)
	}
	if f.s.InPlace(ctx, v) != f.folder {
		t.Fatal("the disk made by the child is not found in place")
	}
	write(t, filepath.Join(f.folder, "index.html"), "edited later")
	if _, err := f.s.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(f.s.inPlaceKey("Later"), "index.html")); string(b) != "edited later" {
		t.Fatalf("the hidden copy holds %q after the save", b)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, f.folder)["index.html"]; got != "edited later" || isTmpfs(f.folder) {
		t.Fatalf("after the eject the folder holds %q (covered: %v)", got, isTmpfs(f.folder))
	}
}

// child runs a disks child process on the fixture (disk "Later"), killing
// itself at killAt ("" runs to the end); out and the exit code (-1 killed).
func (f *inPlaceFixture) child(op, killAt string) (string, int) {
	f.t.Helper()
	cmd := f.command(op, "Later", killAt)
	out, _ := cmd.CombinedOutput()
	return string(out), cmd.ProcessState.ExitCode()
}

// command is a disks child process doing op on disk name at the fixture's
// folder, killing itself at killAt.
func (f *inPlaceFixture) command(op, name, killAt string) *exec.Cmd {
	f.t.Helper()
	exe, err := os.Executable()
	if err != nil {
		f.t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "DISKS_CHILD="+op, "DISKS_NAME="+name, "DISKS_KILL_AT="+killAt,
		"DISKS_ROOT="+f.root, "DISKS_DATA="+f.s.Paths.Data, "DISKS_FOLDER="+f.folder)
	cmd.Stdin = strings.NewReader("")
	return cmd
}

// childInPlace is a child's create or eject of disk DISKS_NAME in place at
// DISKS_FOLDER, killing itself (SIGKILL) once the record says DISKS_KILL_AT.
func childInPlace(ctx context.Context, s *Service, op string) error {
	at := os.Getenv("DISKS_KILL_AT")
	s.inPlaceStep = func(step string) {
		if step == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Minute)
		}
	}
	name := os.Getenv("DISKS_NAME")
	if op == "inplace-create" {
		_, err := s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: name, Size: "64M"},
			Contents: keeper.Options{Mode: ramdisk.Mirror, MirrorPath: os.Getenv("DISKS_FOLDER"), InPlace: true},
			Progress: func(p ramdisk.Progress) {
				if done, _ := p.Units(); at == "load" && done > 0 {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					time.Sleep(time.Minute)
				}
			}})
		return err
	}
	v, err := s.Find(ctx, name)
	if err != nil {
		return err
	}
	_, err = s.Eject(ctx, v, EjectOptions{Force: os.Getenv("DISKS_FORCE") != ""})
	if err == nil {
		fmt.Printf("Ejected %s\n", v.Name) // as the CLI says it: only when Eject says so
	}
	return err
}
