//go:build linux

package linux

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// everyKills is how many children killEveryMoment kills.
const everyKills = 100

// killedCreateAfter creates LINUX_ZRAM_NAME (as killedCreate) with a timer
// that kills the process after the given time from the Create's start; a
// Create that ends first says how long it took ("created in NS") and the
// process exits 0 unless the timer comes first.
func killedCreateAfter(after string) int {
	d, err := time.ParseDuration(after)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	e := New(run.System(), WithMountRoot(os.Getenv("LINUX_ZRAM_ROOT")), WithZramRecords(os.Getenv("LINUX_ZRAM_RECORDS")))
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: os.Getenv("LINUX_ZRAM_NAME"), Size: 16 * ramdisk.MiB, FS: ramdisk.ZRAM, Force: true},
		ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	time.AfterFunc(d, func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) })
	start := time.Now()
	if _, err := e.Create(ctx, p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	fmt.Fprintf(os.Stderr, "created in %d\n", time.Since(start))
	return 0
}

// runKilledAfter runs killedCreateAfter in a child; killed tells whether
// the timer came first, took how long a Create that ended took.
func runKilledAfter(t *testing.T, e *Engine, name, after string) (killed bool, took time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINUX_ZRAM_KILL_AFTER="+after, "LINUX_ZRAM_ROOT="+e.root,
		"LINUX_ZRAM_RECORDS="+e.records, "LINUX_ZRAM_NAME="+name)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
		return true, 0
	}
	text, ok := strings.CutPrefix(strings.TrimSpace(string(out)), "created in ")
	ns, perr := strconv.ParseInt(text, 10, 64)
	if err != nil || !ok || perr != nil {
		t.Fatalf("child (kill after %s): %v %s", after, err, out)
	}
	return false, time.Duration(ns)
}

// killEveryMoment kills a child zram Create at every moment of it: after a
// random time from 0 to a little more than a Create takes, and every tenth
// time the moment its device appears, before the kernel's answer is
// written. After each kill the next command's clean-up (what a Create does
// first, and an eject of a disk that was mounted) leaves no device that
// RAMBar made, no record, and the devices made outside RAMBar (sized, and
// unsized as a fresh device is) as they were.
func killEveryMoment(t *testing.T, e *Engine, outside ...int) {
	start := e.zramList()
	var took time.Duration
	sizes := map[int]int64{}
	for _, n := range outside {
		sizes[n], _ = e.readInt(e.zramAttr(n, "disksize"))
	}
	for i := range 3 { // the quickest of three: the first runs on cold caches
		_, d := runKilledAfter(t, e, fmt.Sprintf("Timed %d", i), "1h")
		if d <= 0 {
			t.Fatal("the timed create was killed")
		}
		if took == 0 || d < took {
			took = d
		}
		cleanUpKilled(t, e)
	}
	t.Logf("a zram create takes %v here", took)
	before := e.zramList()
	stages := map[string]int{}
	for i := range everyKills {
		name := fmt.Sprintf("Every %d", i)
		if i%10 == 9 {
			runKilledAt(t, e, name, "appeared")
			stages[killedStage(e, before)]++
		} else {
			d := time.Duration(rand.Int64N(int64(took) * 11 / 10))
			if killed, _ := runKilledAfter(t, e, name, d.String()); killed {
				stages[killedStage(e, before)]++
			} else {
				stages["not killed"]++
			}
		}
		cleanUpKilled(t, e)
		if leaked := leakedDevices(e, before); len(leaked) != 0 {
			t.Fatalf("kill %d: zram devices left that no record names: %v", i, leaked)
		}
	}
	t.Logf("killed at: %v", stages)
	now := e.zramList()
	for _, s := range start {
		if !seenIn(now, s) && slices.Contains(outside, s.n) {
			t.Errorf("zram%d, made outside RAMBar, is gone", s.n)
		}
	}
	for n, want := range sizes {
		if got, _ := e.readInt(e.zramAttr(n, "disksize")); got != want {
			t.Errorf("zram%d, made outside RAMBar: disksize %d, was %d", n, got, want)
		}
	}
}

// runKilledAt runs killedCreate at a step in a child.
func runKilledAt(t *testing.T, e *Engine, name, at string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINUX_ZRAM_KILL_AT="+at, "LINUX_ZRAM_ROOT="+e.root,
		"LINUX_ZRAM_RECORDS="+e.records, "LINUX_ZRAM_NAME="+name)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("child not killed at %s: %v %s", at, err, out)
	}
}

// killedStage tells from what a killed child left how far its Create got.
func killedStage(e *Engine, before []zramSeen) string {
	recs := e.readRecords()
	if vs, _ := e.List(ctx); len(ownUnder(vs, e.root)) != 0 {
		return "mounted"
	}
	switch {
	case len(recs) == 0:
		return "no record"
	case recs[0].dev >= 0:
		return "device recorded"
	case len(newDevices(e, before)) != 0:
		return "device not yet recorded"
	}
	return "before hot_add"
}

// cleanUpKilled does what the next command does after a kill: frees the
// leftover devices, and ejects a disk the child mounted.
func cleanUpKilled(t *testing.T, e *Engine) {
	t.Helper()
	// A kill during mkfs leaves mkfs.ext4 running a moment longer, holding
	// the device: it is freed once mkfs is done.
	for try := 0; ; try++ {
		_, err := e.FreeLeftoverDevices(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EBUSY) || try == 50 {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	vs, err := e.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range ownUnder(vs, e.root) {
		if err := e.Eject(ctx, v, false); err != nil {
			t.Fatal(err)
		}
	}
	if ents, _ := os.ReadDir(e.records); len(ents) != 0 {
		t.Fatalf("records left: %v", ents)
	}
}

// ownUnder keeps the volumes mounted under root.
func ownUnder(vs []ramdisk.Volume, root string) []ramdisk.Volume {
	var own []ramdisk.Volume
	for _, v := range vs {
		if strings.HasPrefix(v.MountPoint, root+"/") {
			own = append(own, v)
		}
	}
	return own
}

// newDevices lists the zram devices made since before.
func newDevices(e *Engine, before []zramSeen) []zramSeen {
	var out []zramSeen
	for _, s := range e.zramList() {
		if !seenIn(before, s) {
			out = append(out, s)
		}
	}
	return out
}

// leakedDevices lists the devices made since before that nothing uses:
// unconfigured, or RAMBar's ext4 and not mounted. Other programs on this
// machine may be setting up a device of their own at this moment, so a
// device is a leak only if it still looks so a moment later.
func leakedDevices(e *Engine, before []zramSeen) []string {
	var leaked []string
	for try := 0; try < 2; try++ {
		ms, _ := e.mounts()
		leaked = nil
		for _, s := range newDevices(e, before) {
			size, err := e.readInt(e.zramAttr(s.n, "disksize"))
			if err != nil {
				continue
			}
			label, _, lerr := ext4Super("/dev/zram" + strconv.Itoa(s.n))
			if _, mounted := mountOf(ms, s.n); size == 0 || lerr == nil && label == zramLabel && !mounted {
				leaked = append(leaked, fmt.Sprintf("zram%d (disksize %d)", s.n, size))
			}
		}
		if len(leaked) == 0 {
			return nil
		}
		time.Sleep(500 * time.Millisecond)
	}
	return leaked
}

// mountOf finds the mount of zram n.
func mountOf(ms []mountEntry, n int) (mountEntry, bool) {
	for _, m := range ms {
		if m.Source == "/dev/zram"+strconv.Itoa(n) {
			return m, true
		}
	}
	return mountEntry{}, false
}

// TestZRAMAddingRecordBounds: a record that names no device takes only a
// device made between its before list and the moment its process was
// first seen gone (its after list), none while another Create is still
// adding one, and none when another record of its Create (the temporary
// copy a kill leaves) names a device; a device made otherwise, unconfigured
// as a fresh one of ours would be, is never touched.
func TestZRAMAddingRecordBounds(t *testing.T) {
	e := zramEngine(t)
	dir, err := e.recordsDir()
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, r zramRecord) zramRecord {
		r.path = filepath.Join(dir, name)
		if err := r.write(); err != nil {
			t.Fatal(err)
		}
		return r
	}
	dead := deadPid(t)
	for i, c := range []struct {
		name    string
		running bool // another Create is adding a device meanwhile
		sibling bool // another record of the dead Create names a device
		noted   bool // the dead Create was seen gone before the device came
	}{
		{name: "another create adding", running: true},
		{name: "its other record names a device", sibling: true},
		{name: "made after its process was gone", noted: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := write(fmt.Sprintf("create-%d-%d.rec", dead, i), zramRecord{boot: e.bootID(), pid: dead, start: 1, dev: -1,
				size: 16 << 20, adding: true, before: e.zramList()})
			var other zramRecord
			switch {
			case c.running:
				other = write("create-1-2.rec", zramRecord{boot: e.bootID(), pid: os.Getppid(), start: e.startTime(os.Getppid()),
					dev: -1, size: 16 << 20, adding: true, before: e.zramList()})
			case c.sibling:
				other = write(fmt.Sprintf(".create-%d-%d.rec.tmp-1", dead, i), zramRecord{boot: e.bootID(), pid: dead, start: 1,
					dev: 100000, size: 16 << 20, ino: 1})
			case c.noted:
				if left, err := e.LeftoverDevices(ctx); err != nil || len(left) != 0 {
					t.Fatalf("before any device: %v %v", left, err) // notes the after list
				}
			}
			n := outsideZRAM(t)
			os.WriteFile(e.zramAttr(n, "reset"), []byte("1"), 0) // unsized
			ino := e.deviceIno(n)
			if left, err := e.LeftoverDevices(ctx); err != nil || len(left) != 0 {
				t.Errorf("LeftoverDevices = %v, %v", left, err)
			}
			if freed, err := e.FreeLeftoverDevices(ctx); err != nil || len(freed) != 0 {
				t.Errorf("FreeLeftoverDevices = %v, %v", freed, err)
			}
			if e.deviceIno(n) != ino {
				t.Errorf("zram%d, made outside RAMBar, was removed", n)
			}
			other.remove()
			if _, err := e.FreeLeftoverDevices(ctx); err != nil {
				t.Error(err)
			}
			if _, err := os.Stat(rec.path); !errors.Is(err, os.ErrNotExist) && !c.running {
				t.Errorf("the judged record is kept: %v", err)
			}
			rec.remove()
		})
	}
}
