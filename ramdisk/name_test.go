package ramdisk

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateName(t *testing.T) {
	ok := []string{"Scratch", "RAM Disk", "Build-Cache_2", "Ünïcødé", "日本語ディスク", "emoji 🚀", "a", strings.Repeat("x", 255), strings.Repeat("é", 127)}
	for _, n := range ok {
		if err := ValidateName(n); err != nil {
			t.Errorf("ValidateName(%q): %v", n, err)
		}
	}
	bad := []struct{ name, says string }{
		{"", "empty"},
		{"a/b", "'/'"},
		{"a:b", "':'"},
		{"/", "'/'"},
		{"..", "'.'"},
		{".hidden", "'.'"},
		{"tab\there", "control"},
		{"new\nline", "control"},
		{"nul\x00", "control"},
		{"bell\a", "control"},
		{"del\x7f", "control"},
		{"c1\u0085", "control"},
		{strings.Repeat("x", 256), "at most 255"},
		{strings.Repeat("x", 300), "300 bytes"},
		{strings.Repeat("é", 128), "256 bytes"},
		{"bad\xffutf8", "UTF-8"},
		{" lead", "spaces"},
		{"trail ", "spaces"},
	}
	for _, tt := range bad {
		err := ValidateName(tt.name)
		if err == nil {
			t.Errorf("ValidateName(%q) accepted", tt.name)
			continue
		}
		if !errors.Is(err, ErrName) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("ValidateName(%q) = %v, want ErrName saying %q", tt.name, err, tt.says)
		}
	}
}

func TestParseFileSystem(t *testing.T) {
	tests := map[string]FileSystem{
		"APFS": APFS, "apfs": APFS, "APFSX": APFSCase, "apfs-case": APFSCase,
		"HFS+": HFSPlus, "JHFS+": JHFSPlus, "hfs": HFSPlus, "HFSX": HFSPlusCase, "jhfsx": HFSPlusCase,
		"tmpfs": TmpFS, " TMPFS ": TmpFS, "zram": ZRAM,
	}
	for in, want := range tests {
		got, err := ParseFileSystem(in)
		if err != nil || got != want {
			t.Errorf("ParseFileSystem(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "ntfs", "ext4", "fat32"} {
		if _, err := ParseFileSystem(in); !errors.Is(err, ErrFileSystem) {
			t.Errorf("ParseFileSystem(%q) = %v, want ErrFileSystem", in, err)
		}
	}
	for _, f := range AllFileSystems {
		if f.Label() == "" {
			t.Errorf("%q has no label", f)
		}
		if back, err := ParseFileSystem(string(f)); err != nil || back != f {
			t.Errorf("%q does not round-trip: %q, %v", f, back, err)
		}
	}
}
