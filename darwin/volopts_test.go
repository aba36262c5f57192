package darwin

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"rambar/internal/run/runtest"
	"rambar/ramdisk"
)

// fakeVolumes is what the fake Mac knows of remounted volumes: each image's
// mount options, whether its volume was empty when it was unmounted, and
// what a folder held (name, or name -> link) when a volume was mounted on it.
var fakeVolumes = struct {
	sync.Mutex
	opts           map[*fakeImage]string
	emptyAtUnmount map[*fakeImage]bool
	below          map[string][]string
}{opts: map[*fakeImage]string{}, emptyAtUnmount: map[*fakeImage]bool{}, below: map[string][]string{}}

// fakeUnmountDissent makes a plain diskutil unmount fail as when mds holds
// the volume.
var fakeUnmountDissent atomic.Bool

// volumeVerb answers diskutil unmount, diskutil mount [-mountOptions O]
// [-mountPoint P] and mdutil -i on; false for any other call. f.mu is held.
func (f *fakeMac) volumeVerb(argv []string) (runtest.Reply, bool) {
	switch {
	case len(argv) == 3 && argv[0] == "diskutil" && argv[1] == "unmount" && fakeUnmountDissent.Load():
		return fail(1, "Volume Inbox on "+strings.TrimPrefix(argv[2], "/dev/")+" failed to unmount: dissented by PID 312 (/System/Library/Frameworks/CoreServices.framework/Frameworks/Metadata.framework/Versions/A/Support/mds)\n"), true
	case (len(argv) == 3 || len(argv) == 4 && argv[2] == "force") && argv[0] == "diskutil" && argv[1] == "unmount":
		im, found := f.find(argv[len(argv)-1])
		if !found || im.mp == "" {
			return fail(1, "Unable to find disk for "+argv[len(argv)-1]+"\n"), true
		}
		if hs := f.holders[im.mp]; len(hs) > 0 && len(argv) == 3 {
			return fail(1, fmt.Sprintf("Volume %s on %s failed to unmount: dissented by PID %d (/usr/bin/%s)\n", im.name, im.volID(), hs[0].PID, hs[0].Command)), true
		}
		ents, _ := os.ReadDir(im.mp)
		fakeVolumes.Lock()
		fakeVolumes.emptyAtUnmount[im] = len(ents) == 0
		fakeVolumes.Unlock()
		f.unmount(im)
		return ok(fmt.Sprintf("Volume %s on %s unmounted\n", im.name, im.volID())), true
	case len(argv) >= 3 && argv[0] == "diskutil" && argv[1] == "mount":
		im, found := f.find(argv[len(argv)-1])
		if !found {
			return fail(1, "Unable to find disk for "+argv[len(argv)-1]+"\n"), true
		}
		var opts, mp string
		for i := 2; i+1 < len(argv)-1; i += 2 {
			switch argv[i] {
			case "-mountOptions":
				opts = argv[i+1]
			case "-mountPoint":
				mp = argv[i+1]
			default:
				return fail(1, "Usage:  diskutil mount [readOnly] [-mountPoint path] [-mountOptions opts] device\n"), true
			}
		}
		if mp == "" {
			mp = filepath.Join(f.root, im.name)
			os.Mkdir(mp, 0o755)
		} else if st, err := os.Stat(mp); err != nil || !st.IsDir() {
			return fail(1, "Volume on "+im.volID()+" failed to mount\n"), true
		}
		ents, _ := os.ReadDir(mp)
		var below []string
		for _, e := range ents {
			dest, err := os.Readlink(filepath.Join(mp, e.Name()))
			if err == nil {
				below = append(below, e.Name()+" -> "+dest)
			} else {
				below = append(below, e.Name())
			}
		}
		if custom := mp != filepath.Join(f.root, im.name); custom {
			// The volume hides what the folder held until it is unmounted.
			im.below = mp + ".below"
			os.Mkdir(im.below, 0o700)
			for _, e := range ents {
				os.Rename(filepath.Join(mp, e.Name()), filepath.Join(im.below, e.Name()))
			}
		}
		im.mp = mp
		f.remounted(im)
		fakeVolumes.Lock()
		fakeVolumes.below[mp] = below
		fakeVolumes.opts[im] = opts
		fakeVolumes.Unlock()
		return ok(fmt.Sprintf("Volume %s on %s mounted\n", im.name, im.volID())), true
	case len(argv) == 4 && argv[0] == "mdutil" && argv[1] == "-i" && argv[2] == "on":
		return runtest.Reply{Stdout: argv[3] + ":\n\tIndexing enabled.\n"}, true
	}
	return runtest.Reply{}, false
}

func planOpts(t *testing.T, e *Engine, name string, fs ramdisk.FileSystem, o ramdisk.VolumeOptions) ramdisk.Plan {
	t.Helper()
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: name, Size: 64 * ramdisk.MiB, FS: fs, Force: true, Options: o}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNoExecAndMountPointCommandLines: the fake Mac sees erasevolume, then
// the still-empty volume unmounted and mounted again with
// rw,noexec,nosuid,nodev at the chosen folder, and only then the marker
// files; no osascript (no administrator prompt).
func TestNoExecAndMountPointCommandLines(t *testing.T) {
	custom := filepath.Join(t.TempDir(), "Downloads RAM")
	other := filepath.Join(t.TempDir(), "Elsewhere")
	tests := []struct {
		name   string
		fs     ramdisk.FileSystem
		o      ramdisk.VolumeOptions
		dev    string
		mount  []string
		wantMP string
	}{
		{"noexec APFS", ramdisk.APFS, ramdisk.VolumeOptions{NoExec: true}, "/dev/disk5s1",
			[]string{"diskutil", "mount", "-mountOptions", "rw,noexec,nosuid,nodev", "/dev/disk5s1"}, ""},
		{"noexec HFS+ at a folder", ramdisk.HFSPlus, ramdisk.VolumeOptions{NoExec: true, MountPoint: custom}, "/dev/disk4",
			[]string{"diskutil", "mount", "-mountOptions", "rw,noexec,nosuid,nodev", "-mountPoint", custom, "/dev/disk4"}, custom},
		{"APFS at a folder", ramdisk.APFS, ramdisk.VolumeOptions{MountPoint: other}, "/dev/disk5s1",
			[]string{"diskutil", "mount", "-mountPoint", other, "/dev/disk5s1"}, other},
		{"hidden noexec", ramdisk.APFS, ramdisk.VolumeOptions{NoExec: true}, "/dev/disk5s1",
			[]string{"diskutil", "mount", "-mountOptions", "rw,noexec,nosuid,nodev,nobrowse", "/dev/disk5s1"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeMac(t, "26.4.1")
			e := f.engine()
			p := planOpts(t, e, "Inbox", tt.fs, tt.o)
			p.Hidden = strings.HasPrefix(tt.name, "hidden")
			v, err := e.Create(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.wantMP
			if want == "" {
				want = filepath.Join(f.root, "Inbox")
			}
			if v.MountPoint != want {
				t.Errorf("mounted at %s, want %s", v.MountPoint, want)
			}
			order := []string{}
			for _, c := range f.calls {
				if c[0] == "diskutil" && (c[1] == "erasevolume" || c[1] == "unmount" || c[1] == "mount") {
					order = append(order, strings.Join(c, " "))
				}
			}
			format, _ := diskutilFS(tt.fs)
			wantOrder := []string{"diskutil erasevolume " + format + " Inbox /dev/disk4",
				"diskutil unmount " + tt.dev, strings.Join(tt.mount, " ")}
			if strings.Join(order, "\n") != strings.Join(wantOrder, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(order, "\n"), strings.Join(wantOrder, "\n"))
			}
			im, _ := f.find("/dev/disk4")
			fakeVolumes.Lock()
			empty := fakeVolumes.emptyAtUnmount[im]
			fakeVolumes.Unlock()
			if !empty {
				t.Errorf("something was written to the volume before it was mounted again")
			}
			if _, err := os.Stat(filepath.Join(v.MountPoint, markerFile)); err != nil {
				t.Errorf("marker not written after the remount: %v", err)
			}
			if f.called("osascript") != 0 {
				t.Errorf("an administrator prompt was used")
			}
			vs, err := e.List(ctx)
			if err != nil || len(vs) != 1 || vs[0].MountPoint != want || vs[0].Name != "Inbox" {
				t.Errorf("List = %+v, %v", vs, err)
			}
		})
	}
}

// TestPlainDiskIsNotRemounted: without options nothing is mounted twice.
func TestPlainDiskIsNotRemounted(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	if _, err := e.Create(ctx, planOpts(t, e, "Plain", ramdisk.APFS, ramdisk.VolumeOptions{})); err != nil {
		t.Fatal(err)
	}
	if f.called("diskutil", "unmount") != 0 || f.called("diskutil", "mount") != 0 {
		t.Errorf("calls: %q", f.calls)
	}
}

// TestNoExecTmpfsRefused: macOS tmpfs cannot be made noexec without a
// second password prompt, so it is refused before anything runs.
func TestNoExecTmpfsRefused(t *testing.T) {
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	p := planOpts(t, e, "T", ramdisk.TmpFS, ramdisk.VolumeOptions{NoExec: true})
	if _, err := e.Create(ctx, p); err == nil || !strings.Contains(err.Error(), "--noexec with tmpfs") {
		t.Errorf("Create: %v", err)
	}
	if len(f.calls) != 0 {
		t.Errorf("calls: %q", f.calls)
	}
}

// TestSpotlightCommandLines: off by default (mdutil -i off and
// .metadata_never_index); --spotlight runs mdutil -i on and leaves the file out.
func TestSpotlightCommandLines(t *testing.T) {
	for _, on := range []bool{false, true} {
		f := newFakeMac(t, "26.4.1")
		e := f.engine()
		v, err := e.Create(ctx, planOpts(t, e, "Idx", ramdisk.APFS, ramdisk.VolumeOptions{Spotlight: on}))
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(v.MountPoint, ".metadata_never_index"))
		offCalls, onCalls := f.called("mdutil", "-i", "off", v.MountPoint), f.called("mdutil", "-i", "on", v.MountPoint)
		if on && (onCalls != 1 || offCalls != 0 || statErr == nil) {
			t.Errorf("--spotlight: mdutil on %d, off %d, never_index %v", onCalls, offCalls, statErr)
		}
		if !on && (onCalls != 0 || offCalls != 1 || statErr != nil) {
			t.Errorf("default: mdutil on %d, off %d, never_index %v", onCalls, offCalls, statErr)
		}
		for _, n := range v.Notes {
			if strings.Contains(n.Text, "mdutil") {
				t.Errorf("note %q", n)
			}
		}
	}
}

// TestRemountForcesPastSpotlight: when mds holds the new volume the plain
// unmount fails and a forced one (safe: the volume is empty) goes through.
func TestRemountForcesPastSpotlight(t *testing.T) {
	fakeUnmountDissent.Store(true)
	defer fakeUnmountDissent.Store(false)
	f := newFakeMac(t, "26.4.1")
	e := f.engine()
	if _, err := e.Create(ctx, planOpts(t, e, "Inbox", ramdisk.APFS, ramdisk.VolumeOptions{NoExec: true})); err != nil {
		t.Fatal(err)
	}
	if f.called("diskutil", "unmount", "/dev/disk5s1") != 1 || f.called("diskutil", "unmount", "force", "/dev/disk5s1") != 1 ||
		f.called("diskutil", "mount", "-mountOptions", "rw,noexec,nosuid,nodev", "/dev/disk5s1") != 1 {
		t.Errorf("calls: %q", f.calls)
	}
}
