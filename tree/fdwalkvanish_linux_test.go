//go:build linux

package tree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestReadSubOfAFolderThatChanged: a folder the walk lstat'ed that is
// gone by its open, a file or a symlink (to a folder outside) now, or
// removed and made again, vanished: never opened, never read through a
// link. A folder removed after its open reads as ENOENT (Linux), which
// readSub takes as vanished too.
func TestReadSubOfAFolderThatChanged(t *testing.T) {
	tests := []struct {
		name   string
		change func(root, outside string) error
	}{
		{name: "removed", change: func(root, _ string) error { return os.RemoveAll(filepath.Join(root, "d")) }},
		{name: "a file now", change: func(root, _ string) error {
			os.RemoveAll(filepath.Join(root, "d"))
			return os.WriteFile(filepath.Join(root, "d"), nil, 0o644)
		}},
		{name: "a symlink now", change: func(root, outside string) error {
			os.RemoveAll(filepath.Join(root, "d"))
			return os.Symlink(outside, filepath.Join(root, "d"))
		}},
		{name: "removed and made again", change: func(root, _ string) error {
			os.RemoveAll(filepath.Join(root, "d"))
			return os.MkdirAll(filepath.Join(root, "d/f"), 0o755)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := vanishTmpfs(t), vanishTmpfs(t)
			makeFiles(t, root, "d/f")
			makeFiles(t, outside, "f", "outside-only")
			fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			e := &FsEntry{Rel: "d"}
			if err := unix.Fstatat(fd, "d", &e.St, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				t.Fatal(err)
			}
			if err := tt.change(root, outside); err != nil {
				t.Fatal(err)
			}
			sub, names, err := readSub(fd, "d", e)
			if !errors.Is(err, errVanished) || sub != -1 || names != nil {
				t.Errorf("readSub: %d %q %v, want it vanished", sub, names, err)
			}
		})
	}
	t.Run("removed after its open", func(t *testing.T) {
		root := vanishTmpfs(t)
		makeFiles(t, root, "d/")
		fd, err := OpenDirPath(filepath.Join(root, "d"))
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		if err := os.Remove(filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadNames(fd); !errors.Is(err, unix.ENOENT) {
			t.Errorf("ReadNames of a removed folder: %v, want ENOENT (walkIn takes it as vanished)", err)
		}
	})
}

// TestWalkFolderWhileFolderTreesVanish: while folder trees are removed
// and made again without pause (git clean, then an install) and a folder
// is swapped for a symlink to a folder outside, walks of the folder never
// fail, never enter a folder they give as vanished, never list anything
// outside, and keep their order. Once still, a walk lists every path and
// no folder vanished.
func TestWalkFolderWhileFolderTreesVanish(t *testing.T) {
	root, outside := vanishTmpfs(t), vanishTmpfs(t)
	makeFiles(t, outside, "outside-only", "x/outside-only")
	install := func(pkg string) error {
		for i := range 4 {
			for j := range 3 {
				p := filepath.Join(root, pkg, "node_modules", fmt.Sprintf("dep%d/lib%d", i, j))
				if err := os.MkdirAll(p, 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(p, "index.js"), []byte(p), 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	}
	const packages = 3
	for p := range packages {
		if err := install(fmt.Sprintf("pkg%d", p)); err != nil {
			t.Fatal(err)
		}
	}
	makeFiles(t, root, "swap/x/f", "swap/g")
	if err := os.Symlink(outside, filepath.Join(root, "swap.link")); err != nil {
		t.Fatal(err)
	}
	walk := func() (rels []string, vanished int, err error) {
		fd, err := OpenDirPath(root)
		if err != nil {
			return nil, 0, err
		}
		defer unix.Close(fd)
		var gone []string
		err = WalkFolder(fd, func(_ int, _ string, e *FsEntry) error {
			for _, g := range gone {
				if strings.HasPrefix(e.Rel, g+"/") {
					return fmt.Errorf("%s listed, inside %s, which vanished", e.Rel, g)
				}
			}
			if strings.Contains(e.Rel, "outside-only") {
				return fmt.Errorf("%s listed, outside the folder", e.Rel)
			}
			if e.Vanished {
				gone = append(gone, e.Rel)
			}
			rels = append(rels, e.Rel)
			return nil
		})
		return rels, len(gone), err
	}
	halt := churn(func(round int) error {
		pkg := fmt.Sprintf("pkg%d", round%packages)
		if err := os.RemoveAll(filepath.Join(root, pkg, "node_modules")); err != nil {
			return err
		}
		if err := install(pkg); err != nil {
			return err
		}
		return swapWithLink(filepath.Join(root, "swap"))
	})
	defer halt()
	vanished := 0
	for round := range 300 {
		rels, v, err := walk()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if !slices.IsSortedFunc(rels, CmpPath) {
			t.Fatalf("round %d: the walk is out of order", round)
		}
		vanished += v
	}
	if err := halt(); err != nil {
		t.Fatal(err)
	}
	t.Logf("300 walks, %d folders vanished while read", vanished)
	rels, v, err := walk()
	if err != nil || v != 0 {
		t.Fatalf("a walk of the still folder: %d vanished, %v", v, err)
	}
	// The top, each package (itself, node_modules, 4 deps, 12 libs, 12
	// files), swap (4 paths) and its link.
	if want := 1 + packages*30 + 4 + 1; len(rels) != want {
		t.Errorf("a walk of the still folder lists %d paths, want %d", len(rels), want)
	}
}
