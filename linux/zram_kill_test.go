//go:build linux

package linux

import (
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

	"rambar/internal/run"
	"rambar/ramdisk"
)

// TestMain runs the test binary as a child when asked to: one that creates
// a zram disk and kills itself with SIGKILL at one step
// (LINUX_ZRAM_KILL_AT), or another user's process swapping two names
// (LINUX_SWAP_RACE, see TestMountPointSwapRace).
func TestMain(m *testing.M) {
	if at := os.Getenv("LINUX_ZRAM_KILL_AT"); at != "" {
		os.Exit(killedCreate(at))
	}
	if after := os.Getenv("LINUX_ZRAM_KILL_AFTER"); after != "" {
		os.Exit(killedCreateAfter(after))
	}
	if spec := os.Getenv("LINUX_SWAP_RACE"); spec != "" {
		os.Exit(swapLoop(spec))
	}
	os.Exit(m.Run())
}

// killedCreate creates LINUX_ZRAM_NAME under LINUX_ZRAM_ROOT, with records
// in LINUX_ZRAM_RECORDS, and dies at step at. At "appeared" it dies the
// moment the kernel has added the device, before its answer is written
// anywhere (as a kill inside sendfile, between its read and its write).
func killedCreate(at string) int {
	e := New(run.System(), WithMountRoot(os.Getenv("LINUX_ZRAM_ROOT")), WithZramRecords(os.Getenv("LINUX_ZRAM_RECORDS")))
	e.step = func(s string) {
		if s == at {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	if at == "appeared" {
		e.admin = killAfterHotAdd{e.admin}
	}
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: os.Getenv("LINUX_ZRAM_NAME"), Size: 16 * ramdisk.MiB, FS: ramdisk.ZRAM, Force: true},
		ramdisk.Facts{Caps: e.Caps()})
	if err == nil {
		_, err = e.Create(ctx, p)
	}
	fmt.Fprintf(os.Stderr, "not killed at %s: %v\n", at, err)
	return 3
}

// killAfterHotAdd reads hot_add (the kernel adds a device) and dies before
// the answer reaches the record.
type killAfterHotAdd struct{ admin }

func (k killAfterHotAdd) readInto(_ context.Context, src, _ string, _ int64, _ int) error {
	os.ReadFile(src)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {}
}

// zramDevices lists the zram device numbers there are now.
func zramDevices(t *testing.T) map[int]bool {
	t.Helper()
	ents, err := filepath.Glob("/sys/block/zram*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]bool{}
	for _, p := range ents {
		if n := zramDevice("/dev/" + filepath.Base(p)); n >= 0 {
			out[n] = true
		}
	}
	return out
}

// outsideZRAM hot-adds a zram device as another program would (sized, no
// record) and removes it when the test ends.
func outsideZRAM(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/sys/class/zram-control/hot_add")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	e := &Engine{sys: "/sys"}
	ino := e.deviceIno(n)
	t.Cleanup(func() {
		if e.deviceIno(n) == ino { // still ours: the number may be another's by now
			freeTestZRAM(t, n)
		}
	})
	if err := os.WriteFile(fmt.Sprintf("/sys/block/zram%d/disksize", n), []byte("8388608"), 0); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestZRAMKilledCreate kills a child Create at each step, and then at
// every moment (killEveryMoment): a device added before the kill is listed
// as a leftover, also when the kill came as the kernel added it (before its
// number reached the record), the next Create frees it, and nothing is
// leaked; zram devices RAMBar has no record of (one unsized, one sized like
// a swap device) are never touched.
func TestZRAMKilledCreate(t *testing.T) {
	e := zramEngine(t)
	sized := outsideZRAM(t)
	unsized := outsideZRAM(t)
	os.WriteFile(fmt.Sprintf("/sys/block/zram%d/reset", unsized), []byte("1"), 0)
	before := zramDevices(t)
	t.Run("every moment", func(t *testing.T) { killEveryMoment(t, e, sized, unsized) })
	before = zramDevices(t)
	for _, at := range []string{"record", "appeared", "hot_add", "disksize", "mkfs", "mount"} {
		t.Run(at, func(t *testing.T) {
			name := "Killed-" + at
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "LINUX_ZRAM_KILL_AT="+at, "LINUX_ZRAM_ROOT="+e.root,
				"LINUX_ZRAM_RECORDS="+e.records, "LINUX_ZRAM_NAME="+name)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child not killed at %s: %v %s", at, err, out)
			}
			recs := e.readRecords()
			left, err := e.LeftoverDevices(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// Other processes on this machine may add and remove zram
			// devices meanwhile: judge by the child's own record.
			dev, ino := -1, uint64(0)
			switch at {
			case "record":
				if len(recs) != 1 || recs[0].dev != -1 || len(left) != 0 {
					t.Errorf("killed before hot_add: records %+v, leftovers %v", recs, left)
				}
			case "mount":
				// Mounted: a disk like any other, which List shows and Eject frees.
				if len(left) != 0 {
					t.Errorf("killed after the mount: leftovers %v", left)
				}
				vs, _ := listOwn(t, e)
				if len(vs) != 1 || vs[0].Name != name || !vs[0].Managed {
					t.Fatalf("killed after the mount: List = %+v", vs)
				}
				if err := e.Eject(ctx, vs[0], false); err != nil {
					t.Fatal(err)
				}
			case "appeared":
				// The record names no device, but the device is there: the
				// one unconfigured device made after the record.
				if len(recs) != 1 || recs[0].dev != -1 || !recs[0].adding || len(left) != 1 {
					t.Fatalf("killed as the device appeared: records %+v, leftovers %v", recs, left)
				}
				dev = zramDevice(left[0])
				ino = e.deviceIno(dev)
				if before[dev] || ino == 0 {
					t.Fatalf("killed as the device appeared: leftover %s was there before, or is gone", left[0])
				}
			default:
				if len(recs) != 1 || recs[0].dev < 0 || before[recs[0].dev] {
					t.Fatalf("killed after %s: records %+v", at, recs)
				}
				dev, ino = recs[0].dev, e.deviceIno(recs[0].dev)
				if fmt.Sprint(left) != fmt.Sprintf("[/dev/zram%d]", dev) {
					t.Errorf("killed after %s: leftovers %v, want /dev/zram%d", at, left, dev)
				}
				if !zramDevices(t)[dev] {
					t.Errorf("killed after %s: zram%d is not there", at, dev)
				}
			}
			// The next Create frees what is left, and makes its own disk.
			v := mustCreate(t, e, plan(t, e, name, 16*ramdisk.MiB, ramdisk.ZRAM))
			// Another program may be given the number meanwhile: the
			// device is told by its sysfs folder's inode.
			if dev >= 0 && e.deviceIno(dev) == ino {
				t.Errorf("after the next Create: zram%d is still there", dev)
			}
			if left, _ := e.LeftoverDevices(ctx); len(left) != 0 {
				t.Errorf("after the next Create: leftovers %v", left)
			}
			if err := e.Eject(ctx, v, false); err != nil {
				t.Fatal(err)
			}
			if ents, _ := os.ReadDir(e.records); len(ents) != 0 {
				t.Errorf("records left: %v", ents)
			}
			for n := range before {
				if !zramDevices(t)[n] && (n == sized || n == unsized) {
					t.Errorf("zram%d, made outside RAMBar, is gone", n)
				}
			}
		})
	}
	for _, n := range []int{sized, unsized} {
		if _, err := os.Stat(e.zramAttr(n, "reset")); err != nil {
			t.Errorf("zram%d, made outside RAMBar, was touched: %v", n, err)
		}
	}
	if size, _ := e.readInt(e.zramAttr(sized, "disksize")); size != 8388608 {
		t.Errorf("zram%d, made outside RAMBar: disksize %d", sized, size)
	}
}

// TestZRAMKilledRightAfterHotAdd kills a zram Create right after the
// kernel's hot_add returned (the step whose device number used to reach
// the record only afterwards), 30 times. Each time the record already names
// the device; the next command (a Create, which frees leftovers first)
// removes exactly that device and no other: a device another program added
// at the same moment, unsized as a fresh one of ours is, stays.
func TestZRAMKilledRightAfterHotAdd(t *testing.T) {
	e := zramEngine(t)
	for round := 0; round < 30; round++ {
		name := fmt.Sprintf("Hot %d", round)
		other := outsideZRAM(t)
		os.WriteFile(fmt.Sprintf("/sys/block/zram%d/reset", other), []byte("1"), 0) // unsized, like a fresh device
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "LINUX_ZRAM_KILL_AT=hot_add", "LINUX_ZRAM_ROOT="+e.root,
			"LINUX_ZRAM_RECORDS="+e.records, "LINUX_ZRAM_NAME="+name)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child not killed: %v %s", round, err, out)
		}
		recs := e.readRecords()
		if len(recs) != 1 || recs[0].dev < 0 || recs[0].dev == other {
			t.Fatalf("round %d: records %+v (another program's device: zram%d)", round, recs, other)
		}
		dev, ino, otherIno := recs[0].dev, e.deviceIno(recs[0].dev), e.deviceIno(other)
		if ino == 0 || otherIno == 0 {
			t.Fatalf("round %d: zram%d (the record's) or zram%d (another program's) is not there", round, dev, other)
		}
		v := mustCreate(t, e, plan(t, e, name, 16*ramdisk.MiB, ramdisk.ZRAM))
		if e.deviceIno(dev) == ino {
			t.Fatalf("round %d: the killed create's zram%d is still there", round, dev)
		}
		if e.deviceIno(other) != otherIno {
			t.Fatalf("round %d: zram%d, another program's, was removed", round, other)
		}
		if err := e.Eject(ctx, v, false); err != nil {
			t.Fatal(err)
		}
		if e.deviceIno(other) == otherIno {
			freeTestZRAM(t, other)
		}
		if ents, _ := os.ReadDir(e.records); len(ents) != 0 {
			t.Fatalf("round %d: records left: %v", round, ents)
		}
	}
}

// TestZRAMRecordOfOthersDevice: a record whose device is now someone
// else's (mounted, sized otherwise, or gone) is dropped and the device left
// alone; a record of a running process is kept.
func TestZRAMRecordOfOthersDevice(t *testing.T) {
	e := zramEngine(t)
	n := outsideZRAM(t)
	dead := deadPid(t)
	write := func(name string, r zramRecord) string {
		p := filepath.Join(e.records, name)
		if err := os.MkdirAll(e.records, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(r.line()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	boot := e.bootID()
	otherSize := write("create-1-1.rec", zramRecord{boot: boot, pid: dead, start: 1, dev: n, size: 16 << 20})
	otherBoot := write("create-1-2.rec", zramRecord{boot: "another-boot", pid: dead, start: 1, dev: n, size: 8 << 20})
	gone := write("create-1-3.rec", zramRecord{boot: boot, pid: dead, start: 1, dev: 100000, size: 8 << 20})
	// Sized as recorded, but a device added again under the same number.
	reused := write("create-1-8.rec", zramRecord{boot: boot, pid: dead, start: 1, dev: n, size: 8 << 20, ino: e.deviceIno(n) + 1})
	running := write("create-1-4.rec", zramRecord{boot: boot, pid: os.Getppid(), start: e.startTime(os.Getppid()), dev: n, size: 8 << 20})
	noStart := write("create-1-6.rec", zramRecord{boot: boot, pid: os.Getppid(), dev: n, size: 8 << 20})
	junk := write("create-1-5.rec", zramRecord{boot: "x"})
	os.WriteFile(junk, []byte("zram0\n"), 0o600)
	halfWritten := write(fmt.Sprintf(".create-%d-7.rec.tmp-123", dead), zramRecord{boot: "x"})
	os.WriteFile(halfWritten, []byte("rambar-zr"), 0o600)
	if left, err := e.LeftoverDevices(ctx); err != nil || len(left) != 0 {
		t.Errorf("LeftoverDevices = %v, %v", left, err)
	}
	if freed, err := e.FreeLeftoverDevices(ctx); err != nil || len(freed) != 0 {
		t.Errorf("FreeLeftoverDevices = %v, %v", freed, err)
	}
	for _, p := range []string{otherSize, otherBoot, gone, reused, halfWritten} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s kept: %v", filepath.Base(p), err)
		}
	}
	for _, p := range []string{running, noStart, junk} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s dropped: %v", filepath.Base(p), err)
		}
	}
	if size, _ := e.readInt(e.zramAttr(n, "disksize")); size != 8388608 {
		t.Errorf("zram%d touched: disksize %d", n, size)
	}
}

// deadPid is the id of a process that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Fatal(err)
	}
	return c.Process.Pid
}

// TestZRAMTempRecordIsARecord: a kill between writing the record's new
// version and its rename leaves the temporary copy, which names the device.
func TestZRAMTempRecordIsARecord(t *testing.T) {
	e := zramEngine(t)
	// Stands for the device the killed Create added (sized as it was).
	b, err := os.ReadFile("/sys/class/zram-control/hot_add")
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := os.Stat(e.zramAttr(n, "reset")); err == nil {
			freeTestZRAM(t, n)
		}
	})
	os.WriteFile(e.zramAttr(n, "disksize"), []byte("8388608"), 0)
	dir, err := e.recordsDir()
	if err != nil {
		t.Fatal(err)
	}
	dead := deadPid(t)
	old := zramRecord{boot: e.bootID(), pid: dead, start: 1, dev: -1, size: 8 << 20}
	os.WriteFile(filepath.Join(dir, fmt.Sprintf("create-%d-9.rec", dead)), []byte(old.line()), 0o600)
	newer := old
	newer.dev = n
	os.WriteFile(filepath.Join(dir, fmt.Sprintf(".create-%d-9.rec.tmp-42", dead)), []byte(newer.line()), 0o600)
	if left, err := e.LeftoverDevices(ctx); err != nil || fmt.Sprint(left) != fmt.Sprintf("[/dev/zram%d]", n) {
		t.Fatalf("LeftoverDevices = %v, %v; want zram%d", left, err, n)
	}
	freed, err := e.FreeLeftoverDevices(ctx)
	if err != nil || len(freed) != 1 {
		t.Errorf("FreeLeftoverDevices = %v, %v", freed, err)
	}
	if _, err := os.Stat(e.zramAttr(n, "reset")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("zram%d not freed: %v", n, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("records left: %v", ents)
	}
}
