//go:build linux

package linux

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/holders"
	"rambar/internal/run"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

var ctx = context.Background()

// testRoot makes a private mount root for one test and, when the test ends
// (after the test's own cleanups), lazily unmounts anything still mounted
// under it and frees any zram device that was, so nothing is left behind
// even when a test fails half way.
func testRoot(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("these tests mount real tmpfs and zram: run them as root (CI does)")
	}
	root := filepath.Join(t.TempDir(), "mnt")
	t.Cleanup(func() { scrub(t, root) })
	return root
}

func scrub(t *testing.T, root string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Errorf("scrub: %v", err)
		return
	}
	ms, err := parseMountInfo(f)
	f.Close()
	if err != nil {
		t.Errorf("scrub: %v", err)
		return
	}
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		if !strings.HasPrefix(m.MountPoint, root+"/") {
			continue
		}
		t.Errorf("left mounted: %s (%s from %s)", m.MountPoint, m.FSType, m.Source)
		if err := syscall.Unmount(m.MountPoint, syscall.MNT_DETACH); err != nil {
			t.Errorf("scrub umount %s: %v", m.MountPoint, err)
		}
		if n := zramDevice(m.Source); n >= 0 {
			freeTestZRAM(t, n)
		}
	}
}

// freeTestZRAM resets and removes zram N, as the brief says (never zramctl).
func freeTestZRAM(t *testing.T, n int) {
	os.WriteFile(fmt.Sprintf("/sys/block/zram%d/reset", n), []byte("1"), 0)
	if err := os.WriteFile("/sys/class/zram-control/hot_remove", []byte(strconv.Itoa(n)), 0); err != nil {
		t.Errorf("hot_remove zram%d: %v", n, err)
	}
}

// hold starts `sleep` with its working directory on v and an open file on
// it, until release (or the test's end) kills it by PID.
func hold(t *testing.T, v ramdisk.Volume) func() {
	t.Helper()
	f, err := os.Create(filepath.Join(v.MountPoint, "held.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "300")
	cmd.Dir = v.MountPoint
	cmd.ExtraFiles = []*os.File{f}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	done := false
	release := func() {
		if done {
			return
		}
		done = true
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Cleanup(release)
	return release
}

// listOwn is e.List narrowed to the disks the test can have made: those
// under its engine's mount root, and those at a folder under one of dirs
// (its own chosen mount points). Every engine lists a RAMBar tmpfs
// mounted at a folder of one's choice wherever it is, so a user's disks
// and other tests' would otherwise be counted too.
func listOwn(t *testing.T, e *Engine, dirs ...string) ([]ramdisk.Volume, error) {
	t.Helper()
	vs, err := e.List(ctx)
	if err != nil {
		return nil, err
	}
	under := []string{e.root, e.realRoot()}
	for _, d := range dirs {
		under = append(under, d)
		if r, err := filepath.EvalSymlinks(d); err == nil {
			under = append(under, r)
		}
	}
	var own []ramdisk.Volume
	for _, v := range vs {
		for _, d := range under {
			if v.MountPoint == d || strings.HasPrefix(v.MountPoint, d+"/") {
				own = append(own, v)
				break
			}
		}
	}
	return own, nil
}

func newTestEngine(t *testing.T, opts ...Option) *Engine {
	return New(run.System(), append([]Option{WithMountRoot(testRoot(t)), WithZramRecords(filepath.Join(t.TempDir(), "zram"))}, opts...)...)
}

func TestConformanceTmpFS(t *testing.T) {
	ramdisktest.Run(t, func(t *testing.T) ramdisktest.Harness {
		return ramdisktest.Harness{Engine: newTestEngine(t), FS: ramdisk.TmpFS, Hold: hold}
	})
}

func plan(t *testing.T, e *Engine, name string, size ramdisk.Size, fs ramdisk.FileSystem) ramdisk.Plan {
	t.Helper()
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: size, FS: fs, Force: true}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func mustCreate(t *testing.T, e *Engine, p ramdisk.Plan) ramdisk.Volume {
	t.Helper()
	v, err := e.Create(ctx, p)
	if err != nil {
		t.Fatalf("Create %s: %v", p.Name, err)
	}
	t.Cleanup(func() { e.Eject(ctx, v, true) })
	return v
}

func TestCreateTmpFSOptions(t *testing.T) {
	e := newTestEngine(t, withOwner(1234, 5678))
	v := mustCreate(t, e, plan(t, e, "Scratch Disk", 8*ramdisk.MiB, ""))
	ms, err := e.mounts()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := mountAt(ms, v.MountPoint)
	if !ok {
		t.Fatalf("%s not in the mount table", v.MountPoint)
	}
	if m.FSType != "tmpfs" || m.Source != mountSource {
		t.Errorf("mounted %s from %q, want tmpfs from %q", m.FSType, m.Source, mountSource)
	}
	for k, want := range map[string]string{"size": "8192k", "mode": "700", "uid": "1234", "gid": "5678"} {
		if got, _ := m.SuperOption(k); got != want {
			t.Errorf("%s=%q, want %q (%s)", k, got, want, m.SuperOptions)
		}
	}
	for _, o := range []string{"nosuid", "nodev"} {
		if !strings.Contains(","+m.Options+",", ","+o+",") {
			t.Errorf("mount options %q lack %s", m.Options, o)
		}
	}
	st, err := os.Stat(v.MountPoint)
	if err != nil {
		t.Fatal(err)
	}
	sys := st.Sys().(*syscall.Stat_t)
	if st.Mode().Perm() != 0o700 || sys.Uid != 1234 || sys.Gid != 5678 {
		t.Errorf("root folder %v %d:%d, want 0700 1234:5678", st.Mode().Perm(), sys.Uid, sys.Gid)
	}
	vs, err := listOwn(t, e)
	if err != nil || len(vs) != 1 || !vs[0].Managed || vs[0].Name != "Scratch Disk" || vs[0].Size != 8*ramdisk.MiB {
		t.Errorf("List = %+v, %v; want the one managed 8 MiB Scratch Disk", vs, err)
	}
}

func TestInvokingUser(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		name     string
		env      map[string]string
		uid, gid int
	}{
		{"sudo", map[string]string{"SUDO_UID": "1000", "SUDO_GID": "1001"}, 1000, 1001},
		{"pkexec, primary group from passwd", map[string]string{"PKEXEC_UID": "65534"}, 65534, 65534},
		{"plain root", map[string]string{}, 0, 0},
		{"garbage", map[string]string{"SUDO_UID": "x"}, 0, 0},
	}
	for _, tt := range tests {
		uid, gid := invokingUser(env(tt.env))
		if uid != tt.uid || gid != tt.gid {
			t.Errorf("%s: %d:%d, want %d:%d", tt.name, uid, gid, tt.uid, tt.gid)
		}
	}
}

func TestListHandMadeAndOthers(t *testing.T) {
	e := newTestEngine(t)
	root := e.root
	mine := mustCreate(t, e, plan(t, e, "Mine", 4*ramdisk.MiB, ""))
	// A tmpfs someone mounted by hand under the root, and a folder that is
	// not a mount: listed as hand-made, and not listed.
	hand := filepath.Join(root, "By hand")
	os.Mkdir(hand, 0o755)
	os.Mkdir(filepath.Join(root, "empty"), 0o755)
	if err := syscall.Mount("tmpfs", hand, "tmpfs", 0, "size=2m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(hand, syscall.MNT_DETACH) })
	// A tmpfs mounted deeper is not a disk of this root.
	deep := filepath.Join(mine.MountPoint, "deeper")
	os.Mkdir(deep, 0o755)
	if err := syscall.Mount("rambar", deep, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(deep, syscall.MNT_DETACH) })
	vs, err := listOwn(t, e)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Name != "By hand" || vs[0].Managed || vs[0].Size != 2*ramdisk.MiB ||
		vs[1].Name != "Mine" || !vs[1].Managed {
		t.Errorf("List = %+v; want By hand (not managed, 2 MiB), Mine (managed)", vs)
	}
	// A disk with a submount is busy: the holder list may be empty, but the
	// refusal names no process it should not.
	err = e.Eject(ctx, mine, false)
	if !errors.Is(err, ramdisk.ErrBusy) {
		t.Errorf("Eject with a submount: %v, want ErrBusy", err)
	}
}

func TestEjectBusyNamesHolder(t *testing.T) {
	e := newTestEngine(t)
	v := mustCreate(t, e, plan(t, e, "Busy", 4*ramdisk.MiB, ""))
	release := hold(t, v)
	err := e.Eject(ctx, v, false)
	var be *ramdisk.BusyError
	if !errors.As(err, &be) {
		t.Fatalf("Eject: %v, want *BusyError", err)
	}
	found := false
	for _, h := range be.Holders {
		if h.Command == "sleep" {
			found = true
		}
	}
	if !found || !strings.Contains(err.Error(), "sleep (pid ") {
		t.Errorf("BusyError %q does not name the sleep holding it: %+v", err, be.Holders)
	}
	release()
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatalf("Eject after the holder left: %v", err)
	}
	if _, err := os.Stat(v.MountPoint); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mount point left behind: %v", err)
	}
}

func TestHoldersByMap(t *testing.T) {
	e := newTestEngine(t)
	v := mustCreate(t, e, plan(t, e, "Mapped", 4*ramdisk.MiB, ""))
	// A process whose only tie to the disk is a mapped file: a copy of
	// sleep run from the disk (its text is mapped), cwd elsewhere.
	bin, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	copyPath := filepath.Join(v.MountPoint, "mapsleep")
	if err := os.WriteFile(copyPath, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(copyPath, "300")
	cmd.Dir = "/"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ms, _ := e.mounts()
	m, _ := mountAt(ms, v.MountPoint)
	hs := holders.Find("/proc", m.Major, m.Minor, "")
	if len(hs) != 1 || hs[0].PID != cmd.Process.Pid || hs[0].Command != "mapsleep" {
		t.Errorf("holders %+v, want only mapsleep pid %d", hs, cmd.Process.Pid)
	}
}

// TestBadPlansLeaveNothing: plans the engine must refuse itself, even when
// they did not come from NewPlan, and a mount the kernel refuses: nothing
// mounted, no folder left.
func TestBadPlansLeaveNothing(t *testing.T) {
	e := newTestEngine(t)
	good := plan(t, e, "Good", 4*ramdisk.MiB, "")
	bad := map[string]func(p *ramdisk.Plan){
		"slash":      func(p *ramdisk.Plan) { p.Name = "a/b"; p.MountPoint = "" },
		"dotdot":     func(p *ramdisk.Plan) { p.Name = ".."; p.MountPoint = "" },
		"control":    func(p *ramdisk.Plan) { p.Name = "a\x07b"; p.MountPoint = "" },
		"300 chars":  func(p *ramdisk.Plan) { p.Name = strings.Repeat("x", 300); p.MountPoint = "" },
		"zero":       func(p *ramdisk.Plan) { p.Size = 0 },
		"negative":   func(p *ramdisk.Plan) { p.Size = -ramdisk.GiB },
		"elsewhere":  func(p *ramdisk.Plan) { p.MountPoint = "/tmp/Good" },
		"unknown fs": func(p *ramdisk.Plan) { p.FS = ramdisk.APFS },
	}
	for name, mutate := range bad {
		p := good
		mutate(&p)
		if v, err := e.Create(ctx, p); err == nil {
			e.Eject(ctx, v, true)
			t.Errorf("%s: Create succeeded", name)
		}
	}
	// The kernel refuses a uid tmpfs cannot parse: the mount point made for
	// it must go again.
	e2 := New(run.System(), WithMountRoot(e.root), withOwner(-1, -1))
	if _, err := e2.Create(ctx, good); err == nil || !strings.Contains(err.Error(), "mount tmpfs") {
		t.Errorf("Create with uid -1: %v, want the mount's refusal", err)
	}
	vs, _ := listOwn(t, e, "/tmp/Good") // "elsewhere" must not have mounted there either
	ents, _ := os.ReadDir(e.root)
	if len(vs) != 0 || len(ents) != 0 {
		t.Errorf("after refused creates: listed %+v, folders %v", vs, ents)
	}
}

func TestDuplicateAndOccupied(t *testing.T) {
	e := newTestEngine(t)
	p := plan(t, e, "Dup", 4*ramdisk.MiB, "")
	mustCreate(t, e, p)
	if _, err := e.Create(ctx, p); !errors.Is(err, ramdisk.ErrExists) {
		t.Errorf("second Create: %v, want ErrExists", err)
	}
	// A non-empty folder where the disk would go is not mounted over.
	full := plan(t, e, "Full", 4*ramdisk.MiB, "")
	os.Mkdir(full.MountPoint, 0o755)
	os.WriteFile(filepath.Join(full.MountPoint, "keep"), []byte("x"), 0o644)
	if _, err := e.Create(ctx, full); !errors.Is(err, ramdisk.ErrExists) {
		t.Errorf("Create over a non-empty folder: %v, want ErrExists", err)
	}
	if b, err := os.ReadFile(filepath.Join(full.MountPoint, "keep")); err != nil || string(b) != "x" {
		t.Errorf("the folder's file was touched: %q, %v", b, err)
	}
	// An empty folder is used, and kept after eject.
	empty := plan(t, e, "Empty", 4*ramdisk.MiB, "")
	os.Mkdir(empty.MountPoint, 0o755)
	v, err := e.Create(ctx, empty)
	if err != nil {
		t.Fatalf("Create on an empty folder: %v", err)
	}
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
}

func TestEjectNotRAMDisk(t *testing.T) {
	e := newTestEngine(t)
	err := e.Eject(ctx, ramdisk.Volume{Name: "root", MountPoint: "/", FS: ramdisk.TmpFS}, false)
	if !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("Eject of / : %v, want ErrNotFound", err)
	}
	if _, err := e.Usage(ctx, ramdisk.Volume{Name: "proc", MountPoint: "/proc"}); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("Usage of /proc: %v, want ErrNotFound", err)
	}
}

// shmem reads Shmem from /proc/meminfo.
func shmem(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mi, err := parseMemInfo(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	return mi["Shmem"]
}

// near reports whether got is within tol of want.
func near(got, want, tol int64) bool { return got >= want-tol && got <= want+tol }

// TestTmpFSHeldMatchesShmem fills a tmpfs and checks Usage.Held against the
// kernel's Shmem, then deletes (all back), and deletes a file that is still
// open (held until it is closed). Other packages' tests may be using tmpfs
// at the same moment, so a Shmem step is allowed 16 MiB of noise and a
// measurement disturbed beyond that is taken again, up to three times.
func TestTmpFSHeldMatchesShmem(t *testing.T) {
	e := newTestEngine(t)
	v := mustCreate(t, e, plan(t, e, "Fill", 256*ramdisk.MiB, ""))
	const fill = 128 * ramdisk.MiB
	const tol = int64(16 * ramdisk.MiB)
	chunk := make([]byte, ramdisk.MiB)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	write := func(path string, n ramdisk.Size) *os.File {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		for w := ramdisk.Size(0); w < n; w += ramdisk.MiB {
			if _, err := f.Write(chunk); err != nil {
				t.Fatal(err)
			}
		}
		return f
	}
	usage := func() ramdisk.Usage {
		u, err := e.Usage(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	big := filepath.Join(v.MountPoint, "big")
	// step measures act's move of Shmem, again (after setup) while other
	// tests' noise hides it.
	step := func(what string, setup, act func(), wantDelta int64) {
		t.Helper()
		for try := 1; ; try++ {
			setup()
			before := shmem(t)
			act()
			d := shmem(t) - before
			if near(d, wantDelta, tol) {
				t.Logf("%s: Shmem %+d KiB (want %+d KiB)", what, d/1024, wantDelta/1024)
				return
			}
			if try == 10 {
				t.Fatalf("%s: Shmem moved %+d KiB, want %+d KiB ±%d KiB", what, d/1024, wantDelta/1024, tol/1024)
			}
			t.Logf("%s: Shmem moved %+d KiB (noise from other tests?), again", what, d/1024)
			time.Sleep(time.Duration(try) * 50 * time.Millisecond)
		}
	}
	if u := usage(); u.Held != 0 || u.Used != 0 || u.Size != 256*ramdisk.MiB {
		t.Fatalf("empty disk: %+v", u)
	}
	step("write 128 MiB", func() { os.Remove(big) }, func() { write(big, fill).Close() }, int64(fill))
	if u := usage(); u.Held != fill || u.Used != fill || !u.HeldKnown || u.Free != 128*ramdisk.MiB || u.Pinned() != 0 {
		t.Errorf("after writing 128 MiB: %+v", u)
	}
	step("delete it", func() {
		if _, err := os.Stat(big); err != nil {
			write(big, fill).Close()
		}
	}, func() { os.Remove(big) }, 0-int64(fill))
	if u := usage(); u.Held != 0 {
		t.Errorf("after delete: Held %v, want 0", u.Held)
	}
	// Deleted while open: the pages stay until the file is closed.
	var f *os.File
	step("close the deleted file", func() {
		f = write(filepath.Join(v.MountPoint, "open"), 32*ramdisk.MiB)
		os.Remove(filepath.Join(v.MountPoint, "open"))
		if u := usage(); u.Held != 32*ramdisk.MiB {
			t.Errorf("deleted but open: Held %v, want 32 MiB", u.Held)
		}
	}, func() { f.Close() }, -int64(32*ramdisk.MiB))
	if u := usage(); u.Held != 0 {
		t.Errorf("closed: Held %v, want 0", u.Held)
	}
	// Full: ENOSPC at the size, never more memory.
	fits := write(filepath.Join(v.MountPoint, "fits"), 255*ramdisk.MiB)
	fits.Close()
	if _, err := fits.Write(chunk); err == nil {
		t.Fatal("write to a closed file succeeded")
	}
	f2, _ := os.OpenFile(filepath.Join(v.MountPoint, "fits"), os.O_WRONLY|os.O_APPEND, 0)
	_, err1 := f2.Write(chunk)
	_, err2 := f2.Write(chunk)
	f2.Close()
	if !errors.Is(err2, syscall.ENOSPC) && !errors.Is(err1, syscall.ENOSPC) {
		t.Errorf("writing past 256 MiB: %v, %v; want ENOSPC", err1, err2)
	}
	if u := usage(); u.Held != 256*ramdisk.MiB || !u.NearlyFull() {
		t.Errorf("full disk: %+v", u)
	}
}

func TestMemory(t *testing.T) {
	e := New(run.System())
	m, err := e.Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open("/proc/meminfo")
	mi, _ := parseMemInfo(f)
	f.Close()
	if m.Physical != ramdisk.Size(mi["MemTotal"]) || m.Free <= 0 || m.Free > m.Physical {
		t.Errorf("Memory %+v; MemTotal %d", m, mi["MemTotal"])
	}
}

func TestCaps(t *testing.T) {
	e := New(run.System(), WithMountRoot("/tmp/x/"))
	c := e.Caps()
	if c.OS != "linux" || c.MountRoot != "/tmp/x" || len(c.FileSystems) == 0 || c.FileSystems[0] != ramdisk.TmpFS || len(c.NeedsAdmin) != 0 {
		t.Errorf("Caps = %+v", c)
	}
	_, zerr := os.Stat("/sys/class/zram-control")
	if c.Supports(ramdisk.ZRAM) != (zerr == nil && run.Has("mkfs.ext4")) {
		t.Errorf("Caps says zram %v; zram-control: %v", c.Supports(ramdisk.ZRAM), zerr)
	}
	if New(run.System()).Caps().MountRoot != defaultMountRoot {
		t.Errorf("default mount root not %s", defaultMountRoot)
	}
}
