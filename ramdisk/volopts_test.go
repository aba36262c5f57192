package ramdisk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFolders(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		bad  string // part of the error, "" for none
	}{
		{"", nil, ""},
		{"a,b/c", []string{"a", "b/c"}, ""},
		{" a , b/c ", []string{"a", "b/c"}, ""},
		{"Ünïcode/x y", []string{"Ünïcode/x y"}, ""},
		{"/etc", nil, "relative"},
		{"a/../../x", nil, "clean"},
		{"..", nil, "go up"},
		{"a/..", nil, "clean"},
		{"./a", nil, "clean"},
		{"a//b", nil, "clean"},
		{"a/", nil, "clean"},
		{"a,,b", nil, "empty"},
		{"a\nb", nil, "control"},
		{"a:b", nil, "':'"},
	}
	for _, tt := range tests {
		got, err := ParseFolders(tt.in)
		if tt.bad == "" {
			if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("ParseFolders(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
			continue
		}
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tt.bad) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseFolders(%q): %v, want a one-line ErrOption with %q", tt.in, err, tt.bad)
		}
	}
}

func TestCheckIcon(t *testing.T) {
	for in, ok := range map[string]bool{"": true, "/x/a.icns": true, "/x/A.PNG": true, "a.png": false, "/x/a.jpg": false, "/x/a": false} {
		if err := CheckIcon(in); (err == nil) != ok || (err != nil && !errors.Is(err, ErrOption)) {
			t.Errorf("CheckIcon(%q) = %v, want ok %v", in, err, ok)
		}
	}
}

// TestCheckMountPoint: every refusal has its one-line reason; good folders pass.
func TestCheckMountPoint(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	root := filepath.Join(base, "mnt")
	disk := filepath.Join(base, "disk")
	for _, d := range []string{home, root, disk, filepath.Join(base, "empty"), filepath.Join(base, "full")} {
		os.MkdirAll(d, 0o700)
	}
	os.WriteFile(filepath.Join(base, "full", "x"), nil, 0o600)
	os.WriteFile(filepath.Join(base, "file"), nil, 0o600)
	os.Symlink(filepath.Join(base, "empty"), filepath.Join(base, "link"))
	f := mountPointFacts{home: home, uid: os.Getuid(), root: root, mounted: []Volume{{Name: "Other", MountPoint: disk}}}
	tests := []struct {
		dir, why string
	}{
		{filepath.Join(base, "empty"), ""},
		{filepath.Join(base, "new"), ""},
		{filepath.Join(base, "empty") + "/", ""},
		{"relative/x", "absolute path"},
		{"/", "a system folder"},
		{"/usr", "inside the system folder /usr"},
		{"/usr/local/ram", "inside the system folder /usr"},
		{"/etc/x", "inside the system folder /etc"},
		{"/System/Volumes/x", "inside the system folder /System"},
		{"/Library/Caches", "inside the system folder /Library"},
		{home, "your home folder itself"},
		{filepath.Join(home, "Library"), "a folder your login needs"},
		{filepath.Join(root, "X"), "inside RAMBar's mount root"},
		{filepath.Join(disk, "sub"), "inside the RAM disk Other"},
		{filepath.Join(base, "full"), "not empty"},
		{filepath.Join(base, "file"), "a file"},
		{filepath.Join(base, "link"), "symbolic link"},
		{filepath.Join(base, "no", "such"), "parent folder does not exist"},
	}
	for _, tt := range tests {
		got, err := checkMountPoint(tt.dir, f)
		if tt.why == "" {
			if err != nil || got != filepath.Clean(tt.dir) {
				t.Errorf("checkMountPoint(%q) = %q, %v; want it accepted", tt.dir, got, err)
			}
			continue
		}
		if !errors.Is(err, ErrOption) || !strings.Contains(err.Error(), tt.why) || strings.Contains(err.Error(), "\n") {
			t.Errorf("checkMountPoint(%q): %v; want a one-line refusal saying %q", tt.dir, err, tt.why)
		}
	}
	// Someone else's folder.
	other := f
	other.uid = os.Getuid() + 4242
	if _, err := checkMountPoint(filepath.Join(base, "empty"), other); err == nil || !strings.Contains(err.Error(), "belongs to someone else") {
		t.Errorf("another user's folder: %v", err)
	}
}

func TestPresetVolumeOptionsRoundTrip(t *testing.T) {
	o := VolumeOptions{NoExec: true, Folders: []string{"a", "b/c"}, MountPoint: "/x/y", Icon: "/i.png", Spotlight: true}
	var p Preset
	p.SetVolumeOptions(o)
	if got := p.VolumeOptions(); got.Phrase() != o.Phrase() || got.Phrase() != "noexec, folders a, b/c, at /x/y, icon i.png, Spotlight on" {
		t.Errorf("round trip: %+v (%q)", got, got.Phrase())
	}
	p.Name, p.Size, p.Folders = "X", "1G", []string{"../x"}
	if err := p.Validate(16 * GiB); !errors.Is(err, ErrOption) {
		t.Errorf("preset with a bad folder validates: %v", err)
	}
}
