package ramdisk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPathSteps(t *testing.T) {
	const me, other = 1000, 65534
	dir := func(p string, uid int, mode fs.FileMode) PathStep {
		return PathStep{Path: p, UID: uid, Mode: fs.ModeDir | mode}
	}
	root := dir("/", 0, 0o755)
	for _, tt := range []struct {
		name  string
		steps []PathStep
		why   string
	}{
		{"home", []PathStep{root, dir("/home", 0, 0o755), dir("/home/u", me, 0o700), dir("/home/u/ram", me, 0o700)}, ""},
		{"covered folder open to all", []PathStep{root, dir("/home", 0, 0o755), dir("/home/u", me, 0o755), dir("/home/u/ram", me, 0o777)}, ""},
		{"root's sticky /tmp", []PathStep{root, dir("/tmp", 0, 0o777|fs.ModeSticky), dir("/tmp/ram", me, 0o700)}, ""},
		{"root's folder", []PathStep{root, dir("/srv", 0, 0o755), dir("/srv/ram", 0, 0o700)}, ""},
		{"another user's folder in /tmp", []PathStep{root, dir("/tmp", 0, 0o777|fs.ModeSticky), dir("/tmp/x", other, 0o755), dir("/tmp/x/ram", me, 0o700)},
			"/tmp/x belongs to another user (uid 65534)"},
		{"another user's mount point", []PathStep{root, dir("/tmp", 0, 0o777|fs.ModeSticky), dir("/tmp/ram", other, 0o700)},
			"/tmp/ram belongs to another user (uid 65534)"},
		{"group-writable parent", []PathStep{root, dir("/srv", 0, 0o775), dir("/srv/ram", me, 0o700)}, "/srv is writable by its group (mode 0775)"},
		{"world-writable, not sticky", []PathStep{root, dir("/data", 0, 0o777), dir("/data/ram", me, 0o700)}, "/data is writable by others (mode 0777)"},
		{"sticky but not root's", []PathStep{root, dir("/home", 0, 0o755), dir("/home/u", me, 0o777|fs.ModeSticky), dir("/home/u/ram", me, 0o700)},
			"/home/u is writable by others (mode 0777)"},
		{"a symbolic link on the way", []PathStep{root, {Path: "/l", Mode: fs.ModeSymlink | 0o777}, dir("/l/ram", me, 0o700)}, "/l is a symbolic link"},
		{"a file on the way", []PathStep{root, {Path: "/f", Mode: 0o644}}, "/f is not a folder"},
	} {
		if got := CheckPathSteps(tt.steps, me); got == "" && tt.why != "" || !strings.Contains(got, tt.why) || tt.why == "" && got != "" {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.why)
		}
	}
}

// TestCheckMountPointOthersCanWrite: as root, a mount point in a folder
// another user owns, or under a folder others can write, is refused with
// the reason; one in root's sticky /tmp-like folder is not.
func TestCheckMountPointOthersCanWrite(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test makes folders of another user: run it as root (CI does)")
	}
	base := t.TempDir()
	mk := func(p string, mode os.FileMode, uid int) string {
		p = filepath.Join(base, p)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chown(p, uid, uid)
		return p
	}
	theirs := mk("theirs", 0o755, 65534)
	mk("theirs/ram", 0o700, 0)
	group := mk("group", 0o775, 0)
	mk("group/ram", 0o700, 0)
	world := mk("world", 0o777, 0)
	sticky := mk("sticky", 0o777|os.ModeSticky, 0)
	mk("sticky/ram", 0o700, 0)
	f := mountPointFacts{uid: 0, asRoot: true, root: filepath.Join(base, "mnt")}
	for _, tt := range []struct{ dir, why string }{
		{filepath.Join(theirs, "ram"), "belongs to another user (uid 65534)"},
		{filepath.Join(theirs, "new"), "its parent folder belongs to someone else (uid 65534)"},
		{filepath.Join(group, "ram"), "is writable by its group (mode 0775)"},
		{filepath.Join(world, "new"), "is writable by others (mode 0777)"},
		{filepath.Join(sticky, "ram"), ""},
		{filepath.Join(sticky, "new"), ""},
	} {
		_, err := checkMountPoint(tt.dir, f)
		if tt.why == "" && err != nil || tt.why != "" && (!errors.Is(err, ErrOption) || !strings.Contains(errText(err), tt.why)) {
			t.Errorf("%s: %v, want %q", tt.dir, err, tt.why)
		}
	}
	// The disk's user (sudo from uid 65534) may use their own folder.
	f.uid = 65534
	if _, err := checkMountPoint(filepath.Join(theirs, "new"), f); err != nil {
		t.Errorf("their own folder, for them: %v", err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
