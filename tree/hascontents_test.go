package tree

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// TestHasContents: a disk's top holds contents when any name is not
// RAMBar's own (the marker, scratch folders, the Caches folder); it is
// found however many of RAMBar's names come first, and however many
// names follow.
func TestHasContents(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []string
		dirs  []string
		want  bool
	}{
		{"empty", nil, nil, false},
		{"only RAMBar's", []string{MarkerName}, []string{ramdisk.ScratchPrefix + "bench", ramdisk.FallbackLink}, false},
		{"a file", []string{MarkerName, "notes.txt"}, nil, true},
		{"a folder", nil, []string{ramdisk.ScratchPrefix + "x", "src"}, true},
		{"an empty file", []string{"empty"}, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.files {
				os.WriteFile(filepath.Join(dir, f), nil, 0o600)
			}
			for _, d := range c.dirs {
				os.Mkdir(filepath.Join(dir, d), 0o700)
			}
			if got, err := HasContents(dir); err != nil || got != c.want {
				t.Fatalf("HasContents = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	t.Run("many names", func(t *testing.T) {
		dir := t.TempDir()
		for i := range 1000 {
			os.Mkdir(filepath.Join(dir, fmt.Sprintf("%s%04d", ramdisk.ScratchPrefix, i)), 0o700)
		}
		if got, err := HasContents(dir); err != nil || got {
			t.Fatalf("1000 scratch folders: %v, %v", got, err)
		}
		os.WriteFile(filepath.Join(dir, "zz-last"), nil, 0o600)
		if got, err := HasContents(dir); err != nil || !got {
			t.Fatalf("1000 scratch folders and a file: %v, %v", got, err)
		}
	})
	if _, err := HasContents(filepath.Join(t.TempDir(), "gone")); err == nil {
		t.Error("a missing folder: no error")
	}
}
