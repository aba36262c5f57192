//go:build linux

package linux

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/run"
	"rambar/internal/run/runtest"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

func zramEngine(t *testing.T, opts ...Option) *Engine {
	t.Helper()
	e := newTestEngine(t, opts...)
	if !e.Caps().Supports(ramdisk.ZRAM) {
		t.Fatal("this machine has no zram-control or mkfs.ext4; the zram tests need both (CI has them)")
	}
	root := e.root
	// Runs before scrub: frees devices a forced eject left detached.
	t.Cleanup(func() { freeDetached(t, root) })
	return e
}

// freeDetached frees zram devices left behind a detached marker.
func freeDetached(t *testing.T, root string) {
	ents, _ := os.ReadDir(root)
	for _, de := range ents {
		b, err := os.ReadFile(filepath.Join(root, de.Name(), detachedMarker))
		if err != nil {
			continue
		}
		t.Errorf("zram device left detached: %s", b)
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n := zramDevice("/dev/" + f[0]); n >= 0 {
				freeTestZRAM(t, n)
			}
		}
	}
}

func TestConformanceZRAM(t *testing.T) {
	ramdisktest.Run(t, func(t *testing.T) ramdisktest.Harness {
		return ramdisktest.Harness{Engine: zramEngine(t), FS: ramdisk.ZRAM, Hold: hold}
	})
}

func TestCreateZRAM(t *testing.T) {
	e := zramEngine(t, withOwner(1234, 5678))
	v := mustCreate(t, e, plan(t, e, "Packed", 32*ramdisk.MiB, ramdisk.ZRAM))
	n := zramDevice(v.Device)
	ino := e.deviceIno(n) // the number may go to another program's device once freed
	if n < 0 || v.FS != ramdisk.ZRAM || !v.Managed || len(v.Notes) != 0 {
		t.Fatalf("Create = %+v", v)
	}
	if ents, _ := os.ReadDir(e.records); len(ents) != 0 {
		t.Errorf("zram records left after Create: %v", ents)
	}
	algo, _ := os.ReadFile(e.zramAttr(n, "comp_algorithm"))
	if hasAlgorithm(strings.ReplaceAll(string(algo), "[", " "), "lz4") && !strings.Contains(string(algo), "[lz4]") {
		t.Errorf("comp_algorithm %q: lz4 is there but not chosen", algo)
	}
	if size, _ := e.readInt(e.zramAttr(n, "disksize")); size != int64(32*ramdisk.MiB) {
		t.Errorf("disksize %d", size)
	}
	ms, _ := e.mounts()
	m, _ := mountAt(ms, v.MountPoint)
	if m.FSType != "ext4" || !strings.Contains(m.SuperOptions, "discard") || !strings.Contains(m.Options, "nosuid") || !strings.Contains(m.Options, "nodev") {
		t.Errorf("mounted %s %s / %s", m.FSType, m.Options, m.SuperOptions)
	}
	st, _ := os.Stat(v.MountPoint)
	sys := st.Sys().(*syscall.Stat_t)
	if st.Mode().Perm() != 0o700 || sys.Uid != 1234 || sys.Gid != 5678 {
		t.Errorf("root folder %v %d:%d, want 0700 1234:5678", st.Mode().Perm(), sys.Uid, sys.Gid)
	}
	vs, err := listOwn(t, e)
	if err != nil || len(vs) != 1 || vs[0].FS != ramdisk.ZRAM || !vs[0].Managed || vs[0].Size != 32*ramdisk.MiB || vs[0].Device != v.Device {
		t.Errorf("List = %+v, %v", vs, err)
	}
	// Text compresses: the disk holds much less memory than it stores.
	text := []byte(strings.Repeat("RAMBar keeps RAM disks honest about memory. ", 200_000))
	f, err := os.Create(filepath.Join(v.MountPoint, "text.txt"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write(text)
	f.Sync()
	f.Close()
	u, err := e.Usage(ctx, v)
	if err != nil || u.Stored < ramdisk.Size(len(text)) || u.CompressionRatio() < 2 {
		t.Errorf("after %d bytes of text: %+v (ratio %.1f), %v", len(text), u, u.CompressionRatio(), err)
	}
	t.Logf("text: stored %v in %v (%.1fx)", u.Stored, u.Held, u.CompressionRatio())
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	if e.deviceIno(n) == ino {
		t.Errorf("zram%d still there after Eject", n)
	}
	if _, err := os.Stat(v.MountPoint); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mount point still there: %v", err)
	}
}

// TestCreateZRAMFailureLeavesNothing: mkfs fails (the runner refuses it),
// after a real hot_add and disksize: the device and the mount point go.
func TestCreateZRAMFailureLeavesNothing(t *testing.T) {
	sys := run.System()
	r := runtest.Func(func(argv []string, stdin string) runtest.Reply {
		if argv[0] == "mkfs.ext4" {
			return runtest.Reply{Exit: 1, Stderr: "mkfs.ext4: simulated failure"}
		}
		res, err := sys.Run(ctx, run.Cmd{Argv: argv})
		return runtest.Reply{Stdout: string(res.Stdout), Stderr: string(res.Stderr), Exit: max(run.ExitCode(err), 0)}
	})
	e := zramEngine(t)
	e.r, e.admin = r, rootAdmin{r: r}
	_, err := e.Create(ctx, plan(t, e, "Broken", 16*ramdisk.MiB, ramdisk.ZRAM))
	if err == nil || !strings.Contains(err.Error(), "simulated failure") {
		t.Fatalf("Create: %v, want mkfs's failure", err)
	}
	m := regexp.MustCompile(`/dev/zram(\d+)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("error does not name the device: %v", err)
	}
	n, _ := strconv.Atoi(m[1])
	if d, err := os.ReadFile(e.zramAttr(n, "disksize")); err == nil && strings.TrimSpace(string(d)) != "0" {
		t.Errorf("zram%d left with disksize %s", n, d)
	}
	ents, _ := os.ReadDir(e.root)
	if len(ents) != 0 {
		t.Errorf("left in the mount root: %v", ents)
	}
	if ents, _ := os.ReadDir(e.records); len(ents) != 0 {
		t.Errorf("zram records left after the undone Create: %v", ents)
	}
}

// fillRandom writes n bytes of random data (incompressible: zram holds it
// all) and syncs the file system.
func fillRandom(t *testing.T, path string, n ramdisk.Size) {
	t.Helper()
	buf := make([]byte, n)
	rand.Read(buf)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	// fsync writes the data out to the device (ext4 delays allocation).
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func syncfs(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// fsync of the folder commits ext4's journal transaction holding the
	// folder's change (the new or deleted file).
	if err := f.Sync(); err != nil {
		t.Fatalf("fsync %s: %v", dir, err)
	}
}

// TestZRAMHeldAndDiscard fills a zram disk with 32 MiB of random data and
// checks Usage against the device's own mm_stat; then deletes it. With
// discard (the default) the memory comes back; without (WithZramDiscard
// false) it stays pinned, and Usage.Pinned shows it.
func TestZRAMHeldAndDiscard(t *testing.T) {
	const fill = 32 * ramdisk.MiB
	for _, discard := range []bool{true, false} {
		t.Run("discard="+strconv.FormatBool(discard), func(t *testing.T) {
			e := zramEngine(t, WithZramDiscard(discard))
			v := mustCreate(t, e, plan(t, e, "Fill", 128*ramdisk.MiB, ramdisk.ZRAM))
			n := zramDevice(v.Device)
			if !discard {
				vs, _ := listOwn(t, e)
				if len(vs) != 1 || len(vs[0].Notes) == 0 || !strings.Contains(vs[0].Notes[0].Text, "without discard") {
					t.Errorf("List does not say the disk has no discard: %+v", vs)
				}
			}
			fillRandom(t, filepath.Join(v.MountPoint, "random.bin"), fill)
			u, err := e.Usage(ctx, v)
			if err != nil {
				t.Fatal(err)
			}
			mm, err := e.mmStat(n)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("filled: %+v; mm_stat %+v", u, mm)
			if !u.HeldKnown || !near(int64(u.Held), mm.MemUsedTotal, int64(ramdisk.MiB)) || !near(int64(u.Stored), mm.OrigDataSize, int64(ramdisk.MiB)) {
				t.Errorf("Usage held %d stored %d; mm_stat mem_used_total %d orig_data_size %d", u.Held, u.Stored, mm.MemUsedTotal, mm.OrigDataSize)
			}
			if u.Held < fill || u.Stored < fill || u.Used < fill {
				t.Errorf("32 MiB of random data: Usage %+v", u)
			}
			if r := u.CompressionRatio(); r <= 0 || r > 1.5 {
				t.Errorf("compression ratio of random data %.2f", r)
			}
			if m, err := e.Memory(ctx); err != nil || m.Compressed < u.Held {
				t.Errorf("Memory().Compressed %v below this disk's %v (%v)", m.Compressed, u.Held, err)
			}
			if err := os.Remove(filepath.Join(v.MountPoint, "random.bin")); err != nil {
				t.Fatal(err)
			}
			syncfs(t, v.MountPoint)
			// ext4 sends its discards when the journal commits, which syncfs
			// forces; allow the device a moment to take them.
			deadline := time.Now().Add(10 * time.Second)
			for {
				u, err = e.Usage(ctx, v)
				if err != nil {
					t.Fatal(err)
				}
				if !discard || u.Held < 4*ramdisk.MiB || time.Now().After(deadline) {
					break
				}
				time.Sleep(100 * time.Millisecond)
				syncfs(t, v.MountPoint)
			}
			mm, _ = e.mmStat(n)
			t.Logf("deleted: %+v; mm_stat %+v", u, mm)
			if u.Used > 4*ramdisk.MiB {
				t.Errorf("file system still uses %v after delete", u.Used)
			}
			if discard {
				if u.Held >= 4*ramdisk.MiB || mm.OrigDataSize >= int64(4*ramdisk.MiB) || u.Pinned() >= 4*ramdisk.MiB {
					t.Errorf("with discard, memory did not come back: %+v, mm_stat %+v", u, mm)
				}
			} else {
				if u.Held < fill || mm.MemUsedTotal < int64(fill) || u.Pinned() < fill-4*ramdisk.MiB {
					t.Errorf("without discard, memory should stay pinned: %+v (pinned %v), mm_stat %+v", u, u.Pinned(), mm)
				}
			}
		})
	}
}

// TestZRAMForcedEjectWhileHeld: the unmount happens at once, the device is
// freed once its holder goes (by the next List).
func TestZRAMForcedEjectWhileHeld(t *testing.T) {
	e := zramEngine(t)
	v := mustCreate(t, e, plan(t, e, "Held", 16*ramdisk.MiB, ramdisk.ZRAM))
	n := zramDevice(v.Device)
	ino := e.deviceIno(n)
	release := hold(t, v)
	if err := e.Eject(ctx, v, false); !errors.Is(err, ramdisk.ErrBusy) {
		t.Fatalf("Eject: %v, want busy", err)
	}
	if err := e.Eject(ctx, v, true); err != nil {
		t.Fatalf("forced Eject: %v", err)
	}
	if vs, _ := listOwn(t, e); len(vs) != 0 {
		t.Errorf("still listed: %+v", vs)
	}
	if _, err := os.Stat(e.zramAttr(n, "reset")); err != nil {
		t.Fatalf("zram%d went while held: %v", n, err)
	}
	if err := e.Eject(ctx, v, false); !errors.Is(err, ramdisk.ErrBusy) {
		t.Errorf("Eject of the detached, held disk: %v, want busy", err)
	}
	release()
	if _, err := e.List(ctx); err != nil {
		t.Fatal(err)
	}
	if e.deviceIno(n) == ino {
		t.Errorf("zram%d not freed by List after its holder left", n)
	}
	if _, err := os.Stat(v.MountPoint); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mount point left: %v", err)
	}
	if err := e.Eject(ctx, v, false); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("Eject after all is gone: %v, want ErrNotFound", err)
	}
}

func TestParseExt4Super(t *testing.T) {
	sb := make([]byte, 1024)
	sb[0x38], sb[0x39] = 0x53, 0xEF
	copy(sb[0x68:], []byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	copy(sb[0x78:], "rambar")
	label, uuid, err := parseExt4Super(sb)
	if err != nil || label != "rambar" || uuid != "deadbeef0102030405060708090a0b0c" {
		t.Errorf("parseExt4Super = %q %q %v", label, uuid, err)
	}
	if _, _, err := parseExt4Super(make([]byte, 1024)); err == nil {
		t.Errorf("no magic: no error")
	}
}
