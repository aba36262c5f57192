//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"rambar/ramdisk"
)

// TestMountsOfAndStillMounted: MountsOf lists a disk's mount point and
// every bind of it (and nothing else); after its mount point is unmounted
// StillMounted gives the binds left, and after those go, none, even with
// another tmpfs made since at the same mount point (a new file system there
// is not the disk's).
func TestMountsOfAndStillMounted(t *testing.T) {
	e := newTestEngine(t)
	v := mustCreate(t, e, plan(t, e, "Traced", 8<<20, ramdisk.TmpFS))
	other := mustCreate(t, e, plan(t, e, "Other", 8<<20, ramdisk.TmpFS))
	bind := filepath.Join(e.root, "bind")
	if err := os.Mkdir(bind, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(v.MountPoint, bind, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(bind, syscall.MNT_DETACH) })
	ms, err := e.MountsOf(ctx, v)
	if err != nil {
		t.Fatal(err)
	}
	points := func(ms []ramdisk.Mount) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Point)
		}
		slices.Sort(out)
		return out
	}
	if got, want := points(ms), []string{v.MountPoint, bind}; !slices.Equal(got, want) && !slices.Equal(got, []string{bind, v.MountPoint}) {
		t.Fatalf("MountsOf = %v, want %v (not %s)", got, want, other.MountPoint)
	}
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		step string
		do   func()
		want []string
	}{
		{"the mount point unmounted", func() {}, []string{bind}},
		{"the bind unmounted, a new tmpfs at the mount point", func() {
			if err := syscall.Unmount(bind, syscall.MNT_DETACH); err != nil {
				t.Fatal(err)
			}
			mustCreate(t, e, plan(t, e, "Traced", 8<<20, ramdisk.TmpFS))
		}, nil},
	} {
		tt.do()
		left, err := e.StillMounted(ctx, ms)
		if err != nil {
			t.Fatal(err)
		}
		if got := points(left); !slices.Equal(got, tt.want) {
			t.Errorf("%s: StillMounted = %v, want %v", tt.step, got, tt.want)
		}
	}
	if none, err := e.MountsOf(ctx, ramdisk.Volume{Name: "Gone", MountPoint: filepath.Join(e.root, "Gone")}); err != nil || len(none) != 0 {
		t.Errorf("MountsOf a disk not mounted: %v %v", none, err)
	}
}
