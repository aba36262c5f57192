package disks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/keeper"
	"rambar/ramdisk"
)

// exfatFolder makes a real exFAT file system (exfatprogs, in an image on a
// loop device, mounted through FUSE by exfat-fuse, as a USB stick would
// be) and returns a folder on it.
func exfatFolder(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts an exFAT image: run it as root (CI does)")
	}
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "stick.img"), filepath.Join(dir, "stick")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 64<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mkfs.exfat", img).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.exfat: %v %s", err, out)
	}
	out, err := exec.Command("losetup", "--find", "--show", img).Output()
	if err != nil {
		t.Fatalf("losetup: %v", err)
	}
	loop := strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command("losetup", "--detach", loop).Run() })
	os.Mkdir(mnt, 0o755)
	if out, err := exec.Command("mount.exfat-fuse", loop, mnt).CombinedOutput(); err != nil {
		t.Fatalf("mount.exfat-fuse: %v %s", err, out)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(mnt, 0); err != nil {
			syscall.Unmount(mnt, syscall.MNT_DETACH)
		}
	})
	return filepath.Join(mnt, "RAMBar")
}

// TestDataOnExFATWarnsOnce: a data folder on exFAT (no Unix permissions:
// everything there is open to every user) gets one warning naming the
// folder and why, the first time contents are kept there, and none from
// the next command; a data folder opened to others by its mode gets its
// own; a private one, none.
func TestDataOnExFATWarnsOnce(t *testing.T) {
	data := exfatFolder(t)
	var warned []string
	first, _ := memService(t)
	command := func() *Service { // each command makes its own Service
		return &Service{Engine: first.Engine, Paths: ramdisk.Paths{Data: data}, NewKeeper: first.NewKeeper,
			Warn: func(msg string) { warned = append(warned, msg) }}
	}
	ctx := context.Background()
	c, err := command().Create(ctx, CreateRequest{Input: ramdisk.Input{Name: "Stick", Size: "64M"}, Contents: keeper.Options{Mode: ramdisk.Keep}})
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], data+" is on ") || !strings.Contains(warned[0], "keeps no Unix permissions: other users of this computer can read") {
		t.Fatalf("warnings: %q", warned)
	}
	t.Logf("warned: %s", warned[0])
	if _, err := command().Save(ctx, c.Volume, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 {
		t.Errorf("warned again by the next command: %q", warned[1:])
	}

	open := filepath.Join(t.TempDir(), "data")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	if why := ExposedData(open); !strings.Contains(why, "is open to other users (mode 0755)") || !strings.Contains(why, "chmod 700") {
		t.Errorf("a 0755 data folder: %q", why)
	}
	os.Chmod(open, 0o700)
	if why := ExposedData(open); why != "" {
		t.Errorf("a 0700 data folder: %q", why)
	}
}

// TestExposedNoteNeverFollowsALink: the note of a warning given lives in
// the data folder, which, as root, may be another user's; a link planted
// at its name is replaced, never written through (it truncated the file
// it named: root's, with the warning's words).
func TestExposedNoteNeverFollowsALink(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	os.Mkdir(data, 0o755)
	os.Chmod(data, 0o755)
	victim := filepath.Join(t.TempDir(), "precious")
	os.WriteFile(victim, []byte("root's own\n"), 0o600)
	note := filepath.Join(data, exposedNote)
	if err := os.Symlink(victim, note); err != nil {
		t.Fatal(err)
	}
	var warned []string
	s := &Service{Paths: ramdisk.Paths{Data: data}, Warn: func(msg string) { warned = append(warned, msg) }}
	s.warnExposed()
	if b, _ := os.ReadFile(victim); string(b) != "root's own\n" {
		t.Errorf("the file the link named now holds %q", b)
	}
	if len(warned) != 1 {
		t.Errorf("warnings %q, want one", warned)
	}
	if st, err := os.Lstat(note); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the note: %v, %v; want a file of its own", st, err)
	}
}
