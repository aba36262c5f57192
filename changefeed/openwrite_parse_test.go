package changefeed

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"
)

func TestFdinfoFlags(t *testing.T) {
	tests := []struct {
		file     string
		flags    uint64
		writable bool
		err      bool
	}{
		{"wronly-append.txt", 0o2102001, true, false},
		{"rdwr.txt", 0o2100002, true, false},
		{"rdonly.txt", 0o2100000, false, false},
		{"inotify.txt", 0, false, false},
		{"no-flags.txt", 0, false, true},
		{"bad-flags.txt", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata/fdinfo", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := fdinfoFlags(b)
			if (err != nil) != tt.err || got != tt.flags {
				t.Fatalf("fdinfoFlags = %#o, %v; want %#o, error %v", got, err, tt.flags, tt.err)
			}
			if w := writableFlags(got); !tt.err && w != tt.writable {
				t.Errorf("writable(%#o) = %v, want %v", got, w, tt.writable)
			}
		})
	}
}

func TestLsofWriters(t *testing.T) {
	b, err := os.ReadFile("testdata/lsof-F.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := lsofWriters(b)
	want := []string{"/Volumes/Scratch/logs/app.log", "/Volumes/Scratch/db/data.sqlite", "/Volumes/Scratch/db/data.sqlite-wal"}
	if !slices.Equal(got, want) {
		t.Errorf("lsofWriters = %q, want %q", got, want)
	}
	if got := lsofWriters(nil); len(got) != 0 {
		t.Errorf("nothing listed: %q", got)
	}
}

// The libproc structure is laid out as sys/proc_info.h's: its size is
// PROC_PIDFDVNODEPATHINFO_SIZE, its path after the file and vnode info.
func TestVnodePathInfoLayout(t *testing.T) {
	var v vnodeFdInfoWithPath
	if got := unsafe.Sizeof(v); got != 1200 {
		t.Errorf("sizeof(vnode_fdinfowithpath) = %d, want 1200", got)
	}
	if got := unsafe.Sizeof(v.VI.Stat); got != 136 {
		t.Errorf("sizeof(vinfo_stat) = %d, want 136", got)
	}
	if got := unsafe.Offsetof(v.Path); got != 176 {
		t.Errorf("offsetof(vip_path) = %d, want 176", got)
	}
	tests := []struct {
		flags uint32
		path  string
		write bool
	}{
		{0x1, "/Volumes/Scratch/read", false},
		{0x3, "/Volumes/Scratch/db", true},
		{0x2 | 0x8, "/Volumes/Scratch/log", true},
	}
	for _, tt := range tests {
		v = vnodeFdInfoWithPath{}
		v.File.OpenFlags = tt.flags
		copy(v.Path[:], tt.path)
		if p, w := v.writablePath(); p != tt.path || w != tt.write {
			t.Errorf("flags %#x: %q, %v; want %q, %v", tt.flags, p, w, tt.path, tt.write)
		}
	}
}

func TestRelUnder(t *testing.T) {
	roots := []string{"/mnt/d", "/real/d"}
	tests := []struct {
		p, folder, name string
		ok              bool
	}{
		{"/mnt/d/x", ".", "x", true},
		{"/mnt/d/a/b/x", "a/b", "x", true},
		{"/real/d/a/x", "a", "x", true},
		{"/mnt/d", "", "", false},
		{"/mnt/d/", "", "", false},
		{"/mnt/dd/x", "", "", false},
		{"/other/x", "", "", false},
	}
	for _, tt := range tests {
		f, n, ok := relUnder(roots, tt.p)
		if f != tt.folder || n != tt.name || ok != tt.ok {
			t.Errorf("relUnder(%q) = %q, %q, %v; want %q, %q, %v", tt.p, f, n, ok, tt.folder, tt.name, tt.ok)
		}
	}
}
