package darwin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/internal/run"
	"rambar/internal/run/runtest"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

var ctx = context.Background()

func plan(t *testing.T, e *Engine, name string, size ramdisk.Size, fs ramdisk.FileSystem, hidden bool) ramdisk.Plan {
	t.Helper()
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: size, FS: fs, Hidden: hidden, Force: true}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The conformance suite against the engine over the fake Mac, on each macOS
// generation and file system the attach/eject paths differ for.
func TestConformance(t *testing.T) {
	cases := []struct {
		name, version string
		fs            ramdisk.FileSystem
		setup         func(f *fakeMac)
	}{
		{"macOS26-hdiutil-APFS", "26.4.1", ramdisk.APFS, nil},
		{"macOS27-diskutil-APFS", "27.0", ramdisk.APFS, nil},
		{"macOS27-diskutil-HFS", "27.0", ramdisk.HFSPlus, func(f *fakeMac) { f.busyStyle = "69888" }},
		{"macOS12-hdiutil-APFSX", "12.7.6", ramdisk.APFSCase, nil},
		{"macOS27-hidden-from-hdiutil", "27.1", ramdisk.HFSPlusCase, func(f *fakeMac) { f.hideDiskutil = true }},
		{"macOS26-tmpfs", "26.4.1", ramdisk.TmpFS, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ramdisktest.Run(t, func(t *testing.T) ramdisktest.Harness {
				f := newFakeMac(t, c.version)
				if c.setup != nil {
					c.setup(f)
				}
				return ramdisktest.Harness{
					Engine: f.engine(),
					FS:     c.fs,
					Hold: func(t *testing.T, v ramdisk.Volume) func() {
						return f.hold(v.MountPoint, ramdisk.Holder{PID: 4242, Command: "vim"})
					},
				}
			})
		})
	}
}

func TestAttachToolDecidedOnce(t *testing.T) {
	for _, tt := range []struct {
		version, want string
	}{{"27.0", attachDiskutil}, {"28.1", attachDiskutil}, {"26.4.1", attachHdiutil}, {"14.0", attachHdiutil}, {"13.6.1", attachHdiutil}, {"10.15.7", attachHdiutil}} {
		f := newFakeMac(t, tt.version)
		e := f.engine()
		if got := e.AttachTool(ctx); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.version, got, tt.want)
		}
		e.AttachTool(ctx)
		if n := f.called("sw_vers"); n != 1 {
			t.Errorf("%s: sw_vers ran %d times", tt.version, n)
		}
	}
	// sw_vers missing: hdiutil, which every release has.
	e := New(runtest.Func(func(argv []string, _ string) runtest.Reply {
		return runtest.Reply{Stderr: "not found", Exit: 127}
	}))
	if got := e.AttachTool(ctx); got != attachHdiutil {
		t.Errorf("no sw_vers: %s", got)
	}
}

func TestCreateAPFSOnDiskutil(t *testing.T) {
	f := newFakeMac(t, "27.0")
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "Scratch", 4*ramdisk.GiB, ramdisk.APFS, true))
	if err != nil {
		t.Fatal(err)
	}
	if f.called("diskutil", "image", "attach", "--noMount", "--nobrowse", "ram://8388608") != 1 || f.called("hdiutil", "attach") != 0 {
		t.Errorf("attach calls: %q", f.calls)
	}
	if f.called("diskutil", "erasevolume", "APFS", "Scratch", "/dev/disk4") != 1 {
		t.Errorf("erasevolume not called on the trimmed device: %q", f.calls)
	}
	if v.Device != "/dev/disk4" || v.MountPoint != filepath.Join(f.root, "Scratch") || v.HelperPID != 91006 || !v.Hidden || v.Allocation != ramdisk.AllocOnWrite || !v.Managed {
		t.Errorf("volume %+v", v)
	}
	for _, p := range []string{markerFile, ".metadata_never_index", ".fseventsd/no_log"} {
		if _, err := os.Stat(filepath.Join(v.MountPoint, p)); err != nil {
			t.Errorf("%s missing: %v", p, err)
		}
	}
	if st, _ := os.Stat(v.MountPoint); st.Mode().Perm() != 0o700 {
		t.Errorf("mount point mode %v, want 0700", st.Mode().Perm())
	}
	if f.called("mdutil", "-i", "off", v.MountPoint) != 1 {
		t.Errorf("Spotlight not turned off")
	}
	if len(v.Notes) != 1 || !strings.Contains(v.Notes[0].Text, "ownership is ignored") {
		t.Errorf("notes %q", v.Notes)
	}
	vs, err := e.List(ctx)
	if err != nil || len(vs) != 1 || !vs[0].Hidden || vs[0].FS != ramdisk.APFS || vs[0].Size != 4*ramdisk.GiB {
		t.Errorf("List: %+v %v", vs, err)
	}
}

func TestCreateHFSOnHdiutilTrimsPadding(t *testing.T) {
	f := newFakeMac(t, "13.6.1")
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "Build", 512*ramdisk.MiB, ramdisk.HFSPlus, false))
	if err != nil {
		t.Fatal(err)
	}
	if f.called("hdiutil", "attach", "-nomount", "ram://1048576") != 1 || f.called("diskutil", "erasevolume", "HFS+", "Build", "/dev/disk4") != 1 {
		t.Errorf("calls %q", f.calls)
	}
	if v.Allocation != ramdisk.AllocUpfront || v.FS != ramdisk.HFSPlus {
		t.Errorf("volume %+v", v)
	}
}

// hfs+ is plain HFS+, as the seed measured it; jhfs+ is the journaled one.
// Each is erased with its own format and listed back as itself.
func TestHFSPlainAndJournaled(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	for _, c := range []struct {
		name, format string
		fs           ramdisk.FileSystem
	}{{"Plain", "HFS+", ramdisk.HFSPlus}, {"Journal", "JHFS+", ramdisk.JHFSPlus}, {"Cased", "HFSX", ramdisk.HFSPlusCase}} {
		if _, err := e.Create(ctx, plan(t, e, c.name, 64*ramdisk.MiB, c.fs, false)); err != nil {
			t.Fatal(err)
		}
		if f.called("diskutil", "erasevolume", c.format, c.name) != 1 {
			t.Errorf("%s: not erased as %s: %q", c.fs, c.format, f.calls)
		}
	}
	vs, err := e.List(ctx)
	if err != nil || len(vs) != 3 {
		t.Fatalf("List: %+v, %v", vs, err)
	}
	for _, v := range vs {
		want := map[string]ramdisk.FileSystem{"Plain": ramdisk.HFSPlus, "Journal": ramdisk.JHFSPlus, "Cased": ramdisk.HFSPlusCase}[v.Name]
		if v.FS != want {
			t.Errorf("%s listed as %s, want %s", v.Name, v.FS, want)
		}
	}
}

// macOS 27: hdiutil's deprecation warning on stderr is not a failure, and
// never shows in an error.
func TestHdiutilWarningIsNotFailure(t *testing.T) {
	f := newFakeMac(t, "27.0")
	e := f.engine(withAttachTool(attachHdiutil))
	v, err := e.Create(ctx, plan(t, e, "Warned", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err != nil {
		t.Fatal(err)
	}
	if f.warnings != 1 {
		t.Errorf("fake printed %d warnings", f.warnings)
	}
	release := f.hold(v.MountPoint, ramdisk.Holder{PID: 77, Command: "zsh"})
	// diskutil eject fails without a busy code here, so hdiutil detach runs
	// and answers 16 after its warning.
	f.busyStyle = "other"
	err = e.Eject(ctx, v, false)
	release()
	var be *ramdisk.BusyError
	if !errors.As(err, &be) || strings.Contains(err.Error(), "WARNING") || len(be.Holders) != 1 || run.ExitCode(err) != 16 {
		t.Fatalf("busy eject: %v", err)
	}
	if f.warnings != 2 {
		t.Errorf("hdiutil detach did not run (%d warnings)", f.warnings)
	}
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
}

func TestDiskutilVerbMissingFallsBackOnce(t *testing.T) {
	f := newFakeMac(t, "27.0")
	f.diskutilBroken = true
	e := f.engine()
	if _, err := e.Create(ctx, plan(t, e, "One", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, plan(t, e, "Two", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	if d, h := f.called("diskutil", "image", "attach"), f.called("hdiutil", "attach"); d != 1 || h != 2 {
		t.Errorf("diskutil image attach ran %d times, hdiutil attach %d; want 1, 2", d, h)
	}
	if e.AttachTool(ctx) != attachHdiutil {
		t.Errorf("engine did not switch to hdiutil")
	}
}

// Where the version cannot be read, hdiutil is used until it warns that it is
// deprecated; from the next attach on, diskutil image attach.
func TestHdiutilWarningMovesToDiskutil(t *testing.T) {
	f := newFakeMac(t, "27.0")
	f.swVersBroken = true
	e := f.engine()
	if _, err := e.Create(ctx, plan(t, e, "One", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Create(ctx, plan(t, e, "Two", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	if h, d := f.called("hdiutil", "attach"), f.called("diskutil", "image", "attach"); h != 1 || d != 1 || e.AttachTool(ctx) != attachDiskutil {
		t.Errorf("hdiutil attach ran %d times, diskutil image attach %d, now %s; want 1, 1, diskutil", h, d, e.AttachTool(ctx))
	}
}

// diskutil image attach failing for another reason, having attached
// nothing: hdiutil makes this disk, but the engine stays with diskutil.
func TestDiskutilOtherFailureTriesHdiutilOnce(t *testing.T) {
	f := newFakeMac(t, "27.0")
	f.diskutilBroken = true
	f.diskutilWords = "Error: -69877: Couldn't open device\n"
	e := f.engine()
	if _, err := e.Create(ctx, plan(t, e, "Once", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	if f.called("hdiutil", "attach") != 1 || e.AttachTool(ctx) != attachDiskutil || f.attached() != 1 {
		t.Errorf("hdiutil attach ran %d times, tool now %s, %d attached", f.called("hdiutil", "attach"), e.AttachTool(ctx), f.attached())
	}
}

// An attach that succeeds but prints what cannot be read leaves nothing
// attached: the new device is found in diskutil list and detached.
func TestAttachUnreadableOutputDetaches(t *testing.T) {
	for _, version := range []string{"26.4.1", "27.0"} {
		t.Run(version, func(t *testing.T) {
			f := newFakeMac(t, version)
			f.attachGarbage = true
			e := f.engine()
			_, err := e.Create(ctx, plan(t, e, "Lost", 64*ramdisk.MiB, ramdisk.APFS, false))
			if err == nil || !strings.Contains(err.Error(), "no /dev/disk device") || !strings.Contains(err.Error(), "detached /dev/disk4") {
				t.Errorf("Create: %v", err)
			}
			if f.attached() != 0 {
				t.Errorf("%d devices left attached", f.attached())
			}
		})
	}
}

// diskutil image attach failing after it attached: that device is detached
// and hdiutil is not tried, so no second device is attached.
func TestDiskutilFailureAfterAttachNoSecondDevice(t *testing.T) {
	f := newFakeMac(t, "27.0")
	f.diskutilFailsAfter = true
	e := f.engine()
	_, err := e.Create(ctx, plan(t, e, "Twice", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err == nil || !strings.Contains(err.Error(), "-69842") || !strings.Contains(err.Error(), "detached /dev/disk4") {
		t.Errorf("Create: %v", err)
	}
	if f.attached() != 0 || f.next != 5 || f.called("hdiutil", "attach") != 0 {
		t.Errorf("%d attached, next device %d, hdiutil attach ran %d times", f.attached(), f.next, f.called("hdiutil", "attach"))
	}
	if e.AttachTool(ctx) != attachDiskutil {
		t.Errorf("a diskutil failure that attached switched to hdiutil")
	}
}

// hdiutil attach failing after it attached: that device is detached too.
func TestHdiutilFailureAfterAttachDetaches(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	f.hdiutilFailsAfter = true
	e := f.engine()
	_, err := e.Create(ctx, plan(t, e, "Half", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err == nil || !strings.Contains(err.Error(), "Resource temporarily unavailable") || !strings.Contains(err.Error(), "detached /dev/disk4") {
		t.Errorf("Create: %v", err)
	}
	if f.attached() != 0 {
		t.Errorf("%d devices left attached", f.attached())
	}
}

func TestCreateFailedEraseDetaches(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	f.failErase = "Error: -69832: file system formatter failed\n"
	e := f.engine()
	_, err := e.Create(ctx, plan(t, e, "Broken", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err == nil || !strings.Contains(err.Error(), "-69832: file system formatter failed") || !strings.Contains(err.Error(), "diskutil erasevolume APFS Broken /dev/disk4") {
		t.Fatalf("error %v does not carry diskutil's words", err)
	}
	if f.attached() != 0 || f.called("diskutil", "eject", "/dev/disk4") != 1 {
		t.Errorf("device left attached: %d images, calls %q", f.attached(), f.calls)
	}
	// Erase "succeeds" but nothing is mounted: cleaned up too.
	f.failErase, f.failMount = "", true
	if _, err := e.Create(ctx, plan(t, e, "Unmounted", 64*ramdisk.MiB, ramdisk.APFS, false)); err == nil || !strings.Contains(err.Error(), "not mounted") {
		t.Fatalf("unmounted volume: %v", err)
	}
	if f.attached() != 0 {
		t.Errorf("device left attached after a mount failure")
	}
}

func TestCreateCleanupFailureJoined(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	f.failErase = "Error: -69832: file system formatter failed\n"
	inner := runtest.Func(f.answer)
	r := runtest.Func(func(argv []string, in string) runtest.Reply {
		if argv[0] == "diskutil" && argv[1] == "eject" || argv[0] == "hdiutil" && argv[1] == "detach" {
			return runtest.Reply{Stderr: "hdiutil: detach failed - Resource busy\n", Exit: 16}
		}
		return inner(argv, in)
	})
	e := New(r, withMountRoot(f.root))
	_, err := e.Create(ctx, plan(t, e, "Stuck", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err == nil || !strings.Contains(err.Error(), "formatter failed") || !strings.Contains(err.Error(), "still attached") {
		t.Fatalf("error %v", err)
	}
}

func TestCreateRefusesTakenMountPoint(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	p := plan(t, e, "Dup", 64*ramdisk.MiB, ramdisk.APFS, false)
	if _, err := e.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Name = "dup" // same name, other case: still refused
	if _, err := e.Create(ctx, p); !errors.Is(err, ramdisk.ErrExists) {
		t.Errorf("got %v, want ErrExists", err)
	}
	if f.attached() != 1 {
		t.Errorf("a refused create attached a device")
	}
}

func TestCreateRejectsBadPlans(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	for _, p := range []ramdisk.Plan{
		{Name: "a/b", Size: 64 * ramdisk.MiB, FS: ramdisk.APFS},
		{Name: "ok", Size: 64 * ramdisk.MiB, FS: ramdisk.ZRAM},
		{Name: "ok", Size: 0, FS: ramdisk.APFS},
		{Name: "-rf", Size: 64 * ramdisk.MiB, FS: ramdisk.APFS},
	} {
		if _, err := e.Create(ctx, p); err == nil {
			t.Errorf("plan %+v accepted", p)
		}
	}
	if len(f.calls) != 0 || f.attached() != 0 {
		t.Errorf("bad plans ran tools: %q", f.calls)
	}
}

func TestUsageHeldAndPinned(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "Lazy", 4*ramdisk.GiB, ramdisk.APFS, false))
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(v.MountPoint, "big.bin")
	if err := os.WriteFile(big, make([]byte, 8<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	u1, err := e.Usage(ctx, v)
	if err != nil || !u1.HeldKnown || u1.Held < 8<<20 || u1.Used < 8<<20 {
		t.Fatalf("usage after write %+v %v", u1, err)
	}
	os.Remove(big)
	u2, err := e.Usage(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	if u2.Held != u1.Held || u2.Pinned() < 8<<20 {
		t.Errorf("after delete: held %v (was %v), pinned %v", u2.Held, u1.Held, u2.Pinned())
	}
	// footprint missing: ps rss answers.
	f.noFootprint = true
	u3, err := e.Usage(ctx, v)
	if err != nil || !u3.HeldKnown || u3.Held/1024 != u2.Held/1024 {
		t.Errorf("ps fallback %+v %v", u3, err)
	}
}

func TestDiskutilImageMissingFromHdiutil(t *testing.T) {
	f := newFakeMac(t, "27.0")
	f.hideDiskutil = true
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "Ghost", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err != nil {
		t.Fatal(err)
	}
	if v.HelperPID != 0 || !strings.Contains(strings.Join(ramdisk.Texts(v.Notes), ";"), "helper process unknown") {
		t.Errorf("created %+v", v)
	}
	vs, err := e.List(ctx)
	if err != nil || len(vs) != 1 || vs[0].Device != "/dev/disk4" || vs[0].Size != 64*ramdisk.MiB || vs[0].FS != ramdisk.APFS {
		t.Fatalf("List %+v %v", vs, err)
	}
	u, err := e.Usage(ctx, vs[0])
	if err != nil || u.HeldKnown {
		t.Errorf("usage %+v %v: held cannot be known without the helper", u, err)
	}
	// A hand-made disk image not in hdiutil info and without RAMBar's marker
	// is not listed: it cannot be told from a .dmg.
	os.Remove(filepath.Join(v.MountPoint, markerFile))
	if vs, _ := e.List(ctx); len(vs) != 0 {
		t.Errorf("unmarked image listed: %+v", vs)
	}
}

// Busy is recognised however the tools say it: diskutil's dissent or -69888;
// or, after another diskutil failure, hdiutil's exit 16, its "Resource busy"
// with exit 2, or lsof finding holders when hdiutil's words say nothing.
func TestEjectBusyForceAndGone(t *testing.T) {
	for _, style := range [][2]string{{"dissent", ""}, {"69888", ""}, {"other", ""}, {"other", "exit2"}, {"other", "other"}} {
		t.Run(style[0]+"-"+style[1], func(t *testing.T) {
			f := newFakeMac(t, "26.4.1")
			f.busyStyle, f.detachBusy = style[0], style[1]
			e := f.engine()
			v, err := e.Create(ctx, plan(t, e, "Held", 64*ramdisk.MiB, ramdisk.APFS, false))
			if err != nil {
				t.Fatal(err)
			}
			release := f.hold(v.MountPoint, ramdisk.Holder{PID: 632, Command: "Preview"})
			defer release()
			err = e.Eject(ctx, v, false)
			var be *ramdisk.BusyError
			if !errors.As(err, &be) || len(be.Holders) != 1 || be.Holders[0] != (ramdisk.Holder{PID: 632, Command: "Preview"}) {
				t.Fatalf("eject: %v", err)
			}
			if f.attached() != 1 {
				t.Fatal("a refused eject removed the disk")
			}
			if err := e.Eject(ctx, v, true); err != nil {
				t.Fatalf("forced: %v", err)
			}
			if f.attached() != 0 || f.called("diskutil", "unmountDisk", "force", "/dev/disk4") != 1 {
				t.Errorf("forced eject left %d images; calls %q", f.attached(), f.calls)
			}
			if err := e.Eject(ctx, v, false); !errors.Is(err, ramdisk.ErrNotFound) {
				t.Errorf("eject gone: %v", err)
			}
		})
	}
}

// A device number reused by another RAM disk is never ejected in v's name.
func TestEjectReusedDeviceIsNotFound(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "First", 64*ramdisk.MiB, ramdisk.HFSPlus, false))
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	f.next = 4
	if _, err := e.Create(ctx, plan(t, e, "Second", 64*ramdisk.MiB, ramdisk.HFSPlus, false)); err != nil {
		t.Fatal(err)
	}
	if err := e.Eject(ctx, v, true); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("got %v, want ErrNotFound", err)
	}
	if f.attached() != 1 {
		t.Errorf("the other disk was ejected")
	}
}

// The whole disk is found by its role when hdiutil lists the APFS volume and
// container first: List reports it, Usage measures its helper, Eject frees it.
func TestWholeDiskListedLast(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	f.reverseEnts = true
	e := f.engine()
	if _, err := e.Create(ctx, plan(t, e, "Late", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	vs, err := e.List(ctx)
	if err != nil || len(vs) != 1 || vs[0].Device != "/dev/disk4" || vs[0].HelperPID != 91006 {
		t.Fatalf("List: %+v, %v", vs, err)
	}
	if u, err := e.Usage(ctx, ramdisk.Volume{Name: vs[0].Name, MountPoint: vs[0].MountPoint, Device: vs[0].Device, FS: vs[0].FS}); err != nil || !u.HeldKnown {
		t.Errorf("Usage without the helper's pid: %+v, %v", u, err)
	}
	if err := e.Eject(ctx, vs[0], false); err != nil || f.attached() != 0 {
		t.Errorf("Eject: %v, %d still attached", err, f.attached())
	}
	if f.called("diskutil", "eject", "/dev/disk5") != 0 {
		t.Errorf("ejected the APFS container instead of the RAM device: %q", f.calls)
	}
}

// An image attached but not mounted (Disk Utility's Unmount, or an eject
// that unmounted but could not detach) is listed by its device with its size
// and the memory its helper holds, and can be ejected; once mounted again,
// that listing no longer ejects it.
func TestAttachedNotMountedListedAndEjected(t *testing.T) {
	for _, fs := range []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus} {
		t.Run(string(fs), func(t *testing.T) {
			f := newFakeMac(t, "26.4.1")
			e := f.engine()
			if _, err := e.Create(ctx, plan(t, e, "Gone", 256*ramdisk.MiB, fs, false)); err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			f.unmount(f.images[4])
			f.mu.Unlock()
			vs, err := e.List(ctx)
			if err != nil || len(vs) != 1 {
				t.Fatalf("List: %+v, %v", vs, err)
			}
			v := vs[0]
			if v.Name != "disk4" || v.MountPoint != "" || v.Device != "/dev/disk4" || v.Size != 256*ramdisk.MiB || v.HelperPID != 91006 ||
				v.FS != fs || v.Managed || !strings.Contains(strings.Join(ramdisk.Texts(v.Notes), ";"), "not mounted") {
				t.Errorf("listed as %+v", v)
			}
			u, err := e.Usage(ctx, v)
			if err != nil || !u.HeldKnown || u.Held != 265*ramdisk.MiB || u.Size != 256*ramdisk.MiB {
				t.Errorf("Usage: %+v, %v; want the helper's 265 MiB", u, err)
			}
			if err := e.Eject(ctx, v, false); err != nil || f.attached() != 0 {
				t.Errorf("Eject: %v, %d attached", err, f.attached())
			}
			if vs, err := e.List(ctx); err != nil || len(vs) != 0 {
				t.Errorf("List after eject: %+v, %v", vs, err)
			}
		})
	}
	// Listed unmounted, then mounted again: the old listing is stale.
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	if _, err := e.Create(ctx, plan(t, e, "Back", 64*ramdisk.MiB, ramdisk.APFS, false)); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	mp := f.images[4].mp
	f.unmount(f.images[4])
	f.mu.Unlock()
	vs, _ := e.List(ctx)
	f.mu.Lock()
	os.Mkdir(mp, 0o755)
	f.images[4].mp = mp
	f.mu.Unlock()
	if err := e.Eject(ctx, vs[0], false); !errors.Is(err, ramdisk.ErrNotFound) || f.attached() != 1 {
		t.Errorf("stale unmounted listing: %v, %d attached", err, f.attached())
	}
	if _, err := e.Usage(ctx, vs[0]); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("Usage of a stale unmounted listing: %v", err)
	}
}

// Unmounted but still attached (a partial eject): a later Eject detaches it.
func TestEjectFinishesPartialEject(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "Half", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.unmount(f.images[4])
	f.mu.Unlock()
	if err := e.Eject(ctx, v, false); err != nil || f.attached() != 0 {
		t.Errorf("eject of unmounted image: %v, %d attached", err, f.attached())
	}
}

func TestTmpfsAdminPrompt(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	name := `Q'uote "me" $(x) & ;`
	p := plan(t, e, name, 256*ramdisk.MiB, ramdisk.TmpFS, false)
	v, err := e.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	var osa []string
	for _, c := range f.calls {
		if c[0] == "osascript" {
			osa = c
		}
	}
	// The user's text is only ever an argument after "--", never script source.
	i := len(osa) - 4
	if osa[i] != "--" || osa[i+1] != v.MountPoint || osa[i+2] != "268435456" || osa[i+3] != "501:20" {
		t.Errorf("osascript argv tail %q", osa[i:])
	}
	for _, a := range osa[:i] {
		if strings.Contains(a, name) || strings.Contains(a, f.root) {
			t.Errorf("user text in script source: %q", a)
		}
	}
	vs, err := e.List(ctx)
	if err != nil || len(vs) != 1 || vs[0].Name != name || vs[0].FS != ramdisk.TmpFS || vs[0].Size != 256*ramdisk.MiB {
		t.Fatalf("List %+v %v", vs, err)
	}
	f.osaCancel = true
	if err := e.Eject(ctx, v, false); !errors.Is(err, ramdisk.ErrCancelled) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancelled eject: %v", err)
	}
	if _, err := e.Create(ctx, plan(t, e, "Other", 64*ramdisk.MiB, ramdisk.TmpFS, false)); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("cancelled create: %v", err)
	}
	f.osaCancel = false
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
}

// mount_tmpfs caps a tmpfs at half the memory without saying so: a larger
// plan is cut to 16 GiB on a 32 GiB Mac before mounting, with a note, and
// Create, List and Usage show the real size; where memory is unknown the size
// statfs reports after mounting is what is shown.
func TestTmpfsCappedAtHalfTheMemory(t *testing.T) {
	for _, noMemsize := range []bool{false, true} {
		f := newFakeMac(t, "26.4.1")
		f.noMemsize = noMemsize
		e := f.engine()
		p := ramdisk.Plan{Name: "Huge", Size: 20 * ramdisk.GiB, FS: ramdisk.TmpFS}
		v, err := e.Create(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		want := "at most half the memory: 16 GiB instead of the 20 GiB"
		if noMemsize {
			want = "mount_tmpfs made it 16 GiB, not the 20 GiB asked for"
		}
		if v.Size != 16*ramdisk.GiB || !strings.Contains(strings.Join(ramdisk.Texts(v.Notes), ";"), want) {
			t.Errorf("memsize unknown %v: created %+v, want 16 GiB and %q", noMemsize, v, want)
		}
		if vs, err := e.List(ctx); err != nil || len(vs) != 1 || vs[0].Size != 16*ramdisk.GiB {
			t.Errorf("List: %+v, %v", vs, err)
		}
		if u, err := e.Usage(ctx, v); err != nil || u.Size != 16*ramdisk.GiB {
			t.Errorf("Usage: %+v, %v", u, err)
		}
		if mk, ok := readMarker(v.MountPoint); !ok || mk.Size != 16*ramdisk.GiB {
			t.Errorf("marker %+v", mk)
		}
		if err := e.Eject(ctx, v, false); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMemory(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	m, err := f.engine().Memory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ramdisk.Memory{Physical: 34359738368, Free: (130912 + 805511 + 21894) * 16384, Compressed: 153447 * 16384,
		SwapTotal: 2048 << 20, SwapUsed: ramdisk.Size(1462.5 * (1 << 20)), Pressure: "normal"}
	if m != want {
		t.Errorf("Memory\n got %+v\nwant %+v", m, want)
	}
	pct, err := f.engine().FreePercent(ctx)
	if err != nil || pct != 86 {
		t.Errorf("FreePercent %d %v", pct, err)
	}
}

func TestCompressedCopy(t *testing.T) {
	s := runtest.NewScript(t, runtest.Call{Argv: []string{"ditto", "--hfsCompression", "/Users/a/Saved", "/Volumes/RAM/Saved"}})
	if err := CompressedCopy(ctx, s, "/Users/a/Saved/", "/Volumes/RAM/Saved"); err != nil {
		t.Fatal(err)
	}
	if err := CompressedCopy(ctx, s, "-rf", "/x"); err == nil {
		t.Errorf("relative source accepted")
	}
	bad := runtest.NewScript(t, runtest.Call{Argv: []string{"ditto", "--hfsCompression", "/a", "/b"}, Reply: runtest.Reply{Stderr: "ditto: /b: No space left on device\n", Exit: 1}})
	err := CompressedCopy(ctx, bad, "/a", "/b")
	if err == nil || !strings.Contains(err.Error(), "No space left on device") || run.ExitCode(err) != 1 {
		t.Errorf("ditto failure: %v", err)
	}
}

// TestCapture runs doctor --capture's experiments on the fake Mac: every
// read-only tool saved (a failing one recorded, the rest going on), raw
// devices attached each way at 2 and 4 GiB with hdiutil's view and the
// helper's memory, the written-then-deleted file's memory, Spotlight without
// sudo, the provenance attempt, launchd's view of the login item; and no
// disk left behind.
func TestCapture(t *testing.T) {
	f := newFakeMac(t, "27.0")
	inner := runtest.Func(f.answer)
	r := runtest.Func(func(argv []string, in string) runtest.Reply {
		switch strings.Join(argv, " ") {
		case "hdiutil info":
			return runtest.Reply{Stdout: string(read(t, "hdiutil-info-15-ram.txt"))}
		case "sysctl hw.memsize vm.swapusage hw.pagesize":
			return runtest.Reply{Stdout: "hw.memsize: 1\n", Stderr: "sysctl: unknown oid 'hw.pagesize'\n", Exit: 1}
		}
		return inner(argv, in)
	})
	e := New(r, withMountRoot(f.root), withOwner(501, 20), withStatfs(f.statfs))
	dir := filepath.Join(t.TempDir(), "cap")
	files, err := e.Capture(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), "unknown oid") || !strings.Contains(err.Error(), "Operation not permitted") {
		t.Errorf("failing tools are reported: %v", err)
	}
	if strings.Contains(fmt.Sprint(err), "written-") || strings.Contains(fmt.Sprint(err), "helper.err") {
		t.Errorf("an experiment failed: %v", err)
	}
	have := map[string]string{}
	for _, p := range files {
		b, _ := os.ReadFile(p)
		have[filepath.Base(p)] = string(b)
	}
	for _, want := range []string{"vm_stat.txt", "diskutil-image-attach-help.txt", "login-launchctl-print.txt", "login-launchctl-print.txt.stderr",
		"login-launchctl-print-disabled.txt", "sysctl.txt.stderr", "mdutil-off-nosudo.txt", "mdutil-s.txt", "provenance-set.txt.stderr"} {
		if _, ok := have[want]; !ok {
			t.Errorf("%s not captured", want)
		}
	}
	if _, err := parseVMStat([]byte(have["vm_stat.txt"])); err != nil {
		t.Errorf("captured vm_stat does not parse: %v", err)
	}
	for _, tag := range []string{"hdiutil-2g", "hdiutil-4g", "diskutil-2g", "diskutil-4g"} {
		ims, err := parseInfoPlist([]byte(have[tag+"-hdiutil-info.plist"]))
		if err != nil || len(ims) != 1 || ims[0].HelperPID == 0 {
			t.Errorf("%s: hdiutil info %+v, %v", tag, ims, err)
		}
		if !strings.Contains(have[tag+"-ps.txt"], "diskimages-helper") {
			t.Errorf("%s: ps %q", tag, have[tag+"-ps.txt"])
		}
		if fp, err := parseFootprintText([]byte(have[tag+"-footprint.txt"])); err != nil || len(fp) != 1 {
			t.Errorf("%s: footprint %+v, %v", tag, fp, err)
		}
	}
	held := func(tag string) int64 {
		fp, err := parseFootprintText([]byte(have[tag+"-footprint.txt"]))
		if err != nil || len(fp) != 1 {
			t.Fatalf("%s: footprint %+v, %v", tag, fp, err)
		}
		return fp[0].Bytes()
	}
	empty, written, deleted := held("written-0-empty"), held("written-1-after-write"), held("written-2-after-delete")
	if written < empty+256<<20 || deleted != written {
		t.Errorf("helper memory: empty %d, written %d, deleted %d (the fake keeps the high-water mark)", empty, written, deleted)
	}
	if f.attached() != 0 {
		t.Errorf("capture left %d devices attached", f.attached())
	}
}

// A leftover folder at /Volumes/NAME makes macOS mount at "NAME 1": the
// engine reads the real mount point back instead of assuming it.
func TestCreateReadsMountPointBack(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	if err := os.Mkdir(filepath.Join(f.root, "Work"), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := e.Create(ctx, plan(t, e, "Work", 64*ramdisk.MiB, ramdisk.HFSPlus, false))
	if err != nil {
		t.Fatal(err)
	}
	if v.MountPoint != filepath.Join(f.root, "Work 1") {
		t.Errorf("mount point %q", v.MountPoint)
	}
	if _, err := os.Stat(filepath.Join(v.MountPoint, markerFile)); err != nil {
		t.Errorf("marker not on the real mount point: %v", err)
	}
}

func TestUsageHeldUnknownWhenToolsFail(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	v, err := e.Create(ctx, plan(t, e, "Blind", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err != nil {
		t.Fatal(err)
	}
	v.HelperPID = 1 // not the helper: footprint and ps find nothing
	u, err := e.Usage(ctx, v)
	if err != nil || u.HeldKnown || u.Size != 64*ramdisk.MiB || u.Used <= 0 {
		t.Errorf("usage %+v %v", u, err)
	}
}

func TestEjectOtherFailureKeepsBothToolsWords(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	inner := runtest.Func(f.answer)
	r := runtest.Func(func(argv []string, in string) runtest.Reply {
		switch {
		case argv[0] == "diskutil" && argv[1] == "eject":
			return runtest.Reply{Stderr: "Error: -69877: Couldn't open device\n", Exit: 1}
		case argv[0] == "hdiutil" && argv[1] == "detach":
			return runtest.Reply{Stderr: "hdiutil: detach failed - Operation not permitted\n", Exit: 1}
		}
		return inner(argv, in)
	})
	e := New(r, withMountRoot(f.root))
	v, err := e.Create(ctx, plan(t, e, "Stays", 64*ramdisk.MiB, ramdisk.APFS, false))
	if err != nil {
		t.Fatal(err)
	}
	err = e.Eject(ctx, v, false)
	if err == nil || errors.Is(err, ramdisk.ErrBusy) || !strings.Contains(err.Error(), "-69877: Couldn't open device") || !strings.Contains(err.Error(), "Operation not permitted") {
		t.Errorf("eject: %v", err)
	}
	if f.attached() != 1 {
		t.Errorf("disk gone after a failed eject")
	}
}

func TestDiskInfoErrorDocument(t *testing.T) {
	r := runtest.Func(func(argv []string, _ string) runtest.Reply {
		return runtest.Reply{Stdout: plistOut(map[string]any{"Error": true, "ErrorMessage": "The disk is not a volume", "ExitCode": 1}), Exit: 1}
	})
	_, err := New(r).diskInfo(ctx, "disk9")
	if err == nil || errors.Is(err, errNoDisk) || err.Error() != "diskutil info disk9: The disk is not a volume" {
		t.Errorf("got %v", err)
	}
}

// TestVolumeIdentityFlows: the volume UUID diskutil reports is the disk's
// identity in Create and in List alike, for APFS and HFS+, and a disk made
// again under the same name and mount point is another volume.
func TestVolumeIdentityFlows(t *testing.T) {
	for _, fs := range []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus} {
		f := newFakeMac(t, "15.3")
		e := f.engine()
		v, err := e.Create(ctx, plan(t, e, "Work", 512*ramdisk.MiB, fs, false))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(v.Identity, "macos:uuid=") {
			t.Fatalf("%s: Create's identity %q, want the volume UUID", fs, v.Identity)
		}
		vs, err := e.List(ctx)
		if err != nil || len(vs) != 1 || vs[0].Identity != v.Identity {
			t.Fatalf("%s: List %+v %v, want identity %q", fs, vs, err, v.Identity)
		}
		if err := e.Eject(ctx, v, false); err != nil {
			t.Fatal(err)
		}
		again, err := e.Create(ctx, plan(t, e, "Work", 512*ramdisk.MiB, fs, false))
		if err != nil {
			t.Fatal(err)
		}
		if again.MountPoint != v.MountPoint || again.Identity == v.Identity || again.Identity == "" {
			t.Errorf("%s: made again at %s with identity %q, the first %q at %s", fs, again.MountPoint, again.Identity, v.Identity, v.MountPoint)
		}
	}
}
