//go:build linux

package keeper

import (
	"net"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// TestReclaimKeepsFIFOsAndLinksAndNamesSockets: a reclaim moves a FIFO
// and a hard-linked file out and back as what they are, and names the
// socket it cannot move.
func TestReclaimKeepsFIFOsAndLinksAndNamesSockets(t *testing.T) {
	f, v, plan, _ := reclaimFixture(t)
	if err := unix.Mkfifo(filepath.Join(v.MountPoint, "fifo"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Link(filepath.Join(v.MountPoint, "README"), filepath.Join(v.MountPoint, "README.link"))
	l, err := net.Listen("unix", filepath.Join(v.MountPoint, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	res, err := f.k.Reclaim(f.ctx, f.eng, v, plan, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotKept) != 1 || res.NotKept[0].Path != "sock" {
		t.Errorf("not kept: %+v, want the socket", res.NotKept)
	}
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(res.Volume.MountPoint, "fifo"), &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO || st.Mode&0o777 != 0o640 {
		t.Errorf("fifo after the reclaim: mode %o, %v", st.Mode, err)
	}
	if err := unix.Lstat(filepath.Join(res.Volume.MountPoint, "README.link"), &st); err != nil || st.Nlink != 2 {
		t.Errorf("hard link after the reclaim: %d links, %v", st.Nlink, err)
	}
}

// TestMirrorLoadNamesWhatItCannotLoad: a socket in a mirror folder is
// named by the load, not dropped silently.
func TestMirrorLoadNamesWhatItCannotLoad(t *testing.T) {
	f := newFixture(t)
	folder := filepath.Join(t.TempDir(), "Folder")
	write(t, folder, "kept", "x")
	l, err := net.Listen("unix", filepath.Join(folder, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := f.k.Setup("Mir", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	res, err := f.k.Load(f.ctx, f.create("Mir"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotKept) != 1 || res.NotKept[0].Path != "sock" {
		t.Errorf("not kept: %+v, want the socket", res.NotKept)
	}
}
