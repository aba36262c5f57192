package selftest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rambar/changefeed"
	"rambar/disks"
	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

// engine is the real Linux engine over a private mount root; whatever a
// test leaves mounted there is unmounted when it ends. The engine lists
// every RAMBar disk mounted at a folder of its own anywhere (a developer's
// too): only those under root are the test's.
func engine(t *testing.T) (ramdisk.Engine, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the self-test's checks mount tmpfs and must run as root (as CI does)")
	}
	root := t.TempDir()
	e := linux.New(run.System(), linux.WithMountRoot(root))
	t.Cleanup(func() {
		for _, v := range under(e, root) {
			e.Eject(context.Background(), v, true)
		}
	})
	return e, root
}

// under lists the disks mounted under root.
func under(e ramdisk.Engine, root string) []ramdisk.Volume {
	vs, _ := e.List(context.Background())
	var out []ramdisk.Volume
	for _, v := range vs {
		if strings.HasPrefix(v.MountPoint, root+string(filepath.Separator)) {
			out = append(out, v)
		}
	}
	return out
}

func byName(cs []Check) map[string]Check {
	m := map[string]Check{}
	for _, c := range cs {
		m[c.Name] = c
	}
	return m
}

// The engine and store checks pass against the real Linux engine (tmpfs:
// memory taken as written, so both disks hold about what was written),
// the kept disk survives its round trip, and Cleanup leaves nothing.
func TestChecksOnLinux(t *testing.T) {
	ctx := context.Background()
	e, mnt := engine(t)
	r := New(e, filepath.Join(t.TempDir(), "selftest"))
	r.Home = t.TempDir()
	cs := r.Disks(ctx)
	cs = append(cs, r.Kept(ctx), r.Feed(ctx), r.OpenWrite(ctx), r.HardLink(ctx), r.InPlace(ctx))
	got := byName(cs)
	for _, name := range []string{"engine.small", "engine.large", "files", "eject.busy", "kept.roundtrip", "kept.feed", "kept.openwrite", "kept.hardlink", "mirror.inplace"} {
		c, ok := got[name]
		if !ok || c.Status != Pass {
			t.Errorf("%s: %+v", name, c)
		}
	}
	// The feed's checks again with the Mac's semantics (FSEvents hears a
	// write only at close): the app run with RAMBAR_FEED_MODE=fsevents.
	t.Setenv(changefeed.EnvMode, "fsevents")
	for _, c := range []Check{r.Feed(ctx), r.OpenWrite(ctx)} {
		if c.Status != Pass || c.Data["feed_mode"] != "fsevents" {
			t.Errorf("%s with the Mac's semantics: %+v", c.Name, c)
		}
	}
	// inotify reports the link; FSEvents' semantics on Linux do not, and
	// the save after the link holds it either way.
	if n := got["kept.hardlink"].Data["linked_reported"]; n != 1 {
		t.Errorf("kept.hardlink with inotify: %v files reported linked, want 1", n)
	}
	if c := r.HardLink(ctx); c.Status != Pass {
		t.Errorf("kept.hardlink with the Mac's semantics: %+v", c)
	}
	if ls, _ := os.ReadDir(r.Home); len(ls) != 0 {
		t.Errorf("mirror.inplace left %v in the home folder", ls)
	}
	if c := got["engine.hidden"]; c.Status != Skip {
		t.Errorf("engine.hidden on Linux: %+v, want skipped", c)
	}
	if c := got["engine.large"]; c.Data["held_written"].(int64) > int64(64*ramdisk.MiB) {
		t.Errorf("the 4 GiB tmpfs holds %v with 16 MiB written", c.Data["held_written"])
	}
	if c := got["eject.busy"]; !strings.Contains(c.Detail, "sleep (pid ") {
		t.Errorf("eject.busy does not name the holder: %q", c.Detail)
	}
	// The guard's check: a change is unsaved until a save.
	kept := r.KeptDisk()
	if kept == nil {
		t.Fatal("no kept disk after the round trip")
	}
	if err := r.GuardSaved(ctx); err != nil {
		t.Errorf("right after the round trip: %v", err)
	}
	if err := os.WriteFile(filepath.Join(kept.MountPoint, "new.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.GuardSaved(ctx); err == nil {
		t.Error("a file written since the save is not seen as unsaved")
	}
	if _, err := r.Service().Save(ctx, *kept, disks.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := r.GuardSaved(ctx); err != nil {
		t.Errorf("after the save: %v", err)
	}
	if c := r.Cleanup(ctx); c.Status != Pass {
		t.Errorf("cleanup: %+v", c)
	}
	if vs := under(e, mnt); len(vs) != 0 {
		t.Errorf("left mounted under %s: %v", mnt, vs)
	}
	if _, err := os.Stat(r.Work()); !os.IsNotExist(err) {
		t.Errorf("%s is still there (%v)", r.Work(), err)
	}
}

// deadPID is the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// What a killed self-test left (its disks, one held busy by a process, and
// its run folder) is cleaned by the next run; a live run's disks and
// folder, and the user's own disks, even one named as the killed run's
// would be, are left alone.
func TestLeftovers(t *testing.T) {
	ctx := context.Background()
	e, mnt := engine(t)
	root := filepath.Join(t.TempDir(), "selftest")
	dead := New(e, root)
	dead.PID = deadPID(t)
	small, c := dead.memory(ctx, "engine.small", "small", smallSize, 0)
	if c.Status != Pass {
		t.Fatalf("%+v", c)
	}
	holder, err := startHolder(small.v.MountPoint)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { holder.Process.Kill(); holder.Wait() }()
	live := New(e, root) // this process
	if _, c := live.memory(ctx, "engine.small", "small", smallSize, 0); c.Status != Pass {
		t.Fatalf("%+v", c)
	}
	// The user's disk, named as the dead run's would be, but in no record.
	user, err := (&disks.Service{Engine: e}).Create(ctx, disks.CreateRequest{Input: ramdisk.Input{Name: dead.DiskName("mine"), Size: "16M"}})
	if err != nil {
		t.Fatal(err)
	}
	vols, folders, err := Leftovers(ctx, e, root)
	if err != nil || len(vols) != 1 || vols[0].Name != small.v.Name || len(folders) != 1 || folders[0] != dead.Work() {
		t.Fatalf("Leftovers = %v, %v, %v; want the dead run's disk and folder", names(vols), folders, err)
	}
	c = live.CleanLeftovers(ctx)
	if c.Status != Pass || !strings.Contains(c.Detail, "1 disk, 1 folder") {
		t.Errorf("CleanLeftovers: %+v", c)
	}
	left := names(under(e, mnt))
	if len(left) != 2 || !strings.Contains(strings.Join(left, ","), live.DiskName("small")) || !strings.Contains(strings.Join(left, ","), user.Volume.Name) {
		t.Errorf("mounted after the cleaning: %v; want this run's disk and the user's", left)
	}
	if _, err := os.Stat(live.Work()); err != nil {
		t.Errorf("the live run's folder was removed: %v", err)
	}
	if c := live.Cleanup(ctx); c.Status != Pass {
		t.Errorf("cleanup: %+v", c)
	}
	if vs := under(e, mnt); len(vs) != 1 || vs[0].Name != user.Volume.Name {
		t.Errorf("after Cleanup: %v, want only the user's disk", names(vs))
	}
}
