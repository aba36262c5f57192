//go:build linux

package keeper

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"rambar/tree"
)

// A folder removed and made again while a refresh runs (git clean, then
// a checkout that puts a file the folder had deleted back as it was): the
// refresh's second look before deleting that file on the disk sees the
// folder as it is now, not the removed folder through a descriptor kept
// open, so the file stays on both sides and no write-back deletes it
// from the folder afterwards.
func TestRefreshSecondLookSeesAFolderMadeAgain(t *testing.T) {
	f := newMirror(t, map[string]string{"pkg/a.txt": "a", "pkg/b.txt": "b", "top.txt": "t"})
	write(t, f.folder, "pkg/a.txt", "a, edited in the folder")
	if err := os.Remove(f.inFolder("pkg/b.txt")); err != nil {
		t.Fatal(err)
	}
	f.k.refreshing = func() {
		if err := os.RemoveAll(f.inFolder("pkg")); err != nil {
			t.Error(err)
		}
		write(t, f.folder, "pkg/a.txt", "a, edited in the folder")
		write(t, f.folder, "pkg/b.txt", "b")
	}
	f.refresh()
	f.k.refreshing = nil
	for _, p := range []string{f.inFolder("pkg/b.txt"), f.disk("pkg/b.txt")} {
		if b, err := os.ReadFile(p); err != nil || string(b) != "b" {
			t.Errorf("%s: %q, %v; want it kept, as the folder has it again", p, b, err)
		}
	}
	f.refresh()
	sameTree(t, digest(t, f.folder), digest(t, f.v.MountPoint))
	if n := f.changes(); n != 0 {
		t.Errorf("%d changes kept in the folder after the second refresh", n)
	}
}

// A Mirror folder whose folder trees are removed and made again without
// pause (git clean -fdx, then an install) while the disk is loaded from
// it and refreshed again and again: neither the load nor a refresh fails
// on a folder that vanished while it was walked, and once the churn
// stops a refresh brings the disk to the folder, which still holds every
// file the last install made; no install ever finds a folder it made
// removed under it, and no conflict copy is made.
func TestRefreshWhileFolderTreesVanish(t *testing.T) {
	const packages = 3
	install := func(folder string, p int) error {
		for i := range 4 {
			for j := range 3 {
				rel := fmt.Sprintf("pkg%d/node_modules/dep%d/lib%d/index.js", p, i, j)
				if err := os.MkdirAll(filepath.Join(folder, filepath.Dir(rel)), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(folder, rel), []byte(rel), 0o644); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var churnErr error
	var rounds atomic.Int64
	halt := func() { stop.Store(true); wg.Wait() }
	f := newMirrorFill(t, func(folder string) {
		for p := range packages {
			if err := install(folder, p); err != nil {
				t.Fatal(err)
			}
		}
		write(t, folder, "README", "calm")
		t.Cleanup(halt) // before the folder's tmpfs goes
		wg.Add(1)
		go func() { // from the load on
			defer wg.Done()
			for round := 0; !stop.Load(); round++ {
				p := round % packages
				// A write-back may make a folder in there meanwhile:
				// a removal that fails is tried again next round.
				os.RemoveAll(filepath.Join(folder, fmt.Sprintf("pkg%d/node_modules", p)))
				// The save after a refresh that took the removal onto the
				// disk starts from what the refresh left (Refresh.Bases):
				// it never removes a folder the install has just made
				// again (the same, by content), so the install never
				// finds one gone under it.
				if churnErr = install(folder, p); churnErr != nil {
					return
				}
				rounds.Add(1)
			}
		}()
	})
	for round := range 10 {
		if _, err := f.k.Refresh(f.ctx, f.v, nil); err != nil {
			t.Fatalf("refresh %d while folder trees vanish: %v", round, err)
		}
		if _, err := f.k.FolderChanges(f.v); err != nil {
			t.Fatalf("changes kept in the folder, round %d: %v", round, err)
		}
	}
	halt()
	if churnErr != nil {
		t.Fatal(churnErr)
	}
	t.Logf("a load and 10 refreshes through %d removals and installs", rounds.Load())
	if rounds.Load() < 10 {
		t.Fatalf("only %d removals and installs: the churn did not run along", rounds.Load())
	}
	f.refresh()
	f.refresh()
	// Files and folders, not the folders' times: a folder made again
	// with the same names is no change a refresh takes.
	if want, got := contentsOf(t, f.folder), contentsOf(t, f.v.MountPoint); !reflect.DeepEqual(want, got) {
		t.Errorf("the disk after the refresh:\n%v\nthe folder:\n%v", got, want)
	}
	for p := range packages {
		for i := range 4 {
			for j := range 3 {
				rel := fmt.Sprintf("pkg%d/node_modules/dep%d/lib%d/index.js", p, i, j)
				if got := read(t, f.inFolder(rel)); got != rel {
					t.Errorf("folder %s = %q", rel, got)
				}
			}
		}
	}
	noCopies(t, f.folder)
	noCopies(t, f.v.MountPoint)
}

// contentsOf is every path under root (its top's own names left out
// where RAMBar keeps them for itself) with its kind and a file's bytes.
func contentsOf(t *testing.T, root string) map[string]string {
	t.Helper()
	out, reserved := map[string]string{}, tree.ReservedIn(root)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." || reserved(strings.SplitN(rel, "/", 2)[0]) {
			return nil
		}
		switch {
		case d.IsDir():
			out[rel] = "folder"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = "file " + string(b)
		default:
			out[rel] = d.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
