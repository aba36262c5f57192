//go:build darwin || linux

package changefeed

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestFSEvent sorts FSEvents events out as the Mac's feed does: under
// either form of the top folder (the path opened, or the kernel's:
// /System/Volumes/Data/Users/… for /Users/…) a change is its folder's;
// outside both the feed is lost (never dropped silently); a file flagged
// ItemIsHardlink with two names is Linked.
func TestFSEvent(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644)
	os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	os.WriteFile(filepath.Join(dir, "single"), []byte("x"), 0o644)
	roots := fsRoots{"/Users/ana/site", "/System/Volumes/Data/Users/ana/site"}
	const created = 0x100
	for _, c := range []struct {
		name    string
		roots   fsRoots
		path    string
		flags   uint32
		folders []string
		lost    string // in Why ("": not lost)
		linked  bool
	}{
		{"the opened form", roots, "/Users/ana/site/src/main.go", created | eventItemIsFile, []string{"src"}, "", false},
		{"the kernel's form", roots, "/System/Volumes/Data/Users/ana/site/src/main.go", created | eventItemIsFile, []string{"src"}, "", false},
		{"the top folder itself", roots, "/System/Volumes/Data/Users/ana/site", 0, []string{"."}, "", false},
		{"outside the top folder", roots, "/Users/ana/sitemap/x", created, nil, "outside the disk's top folder", false},
		{"a path elsewhere", roots, "/private/var/folders/x", created, nil, "outside", false},
		{"dropped", roots, "/Users/ana/site/x", eventKernDropped, nil, "dropped", false},
		{"rescan", roots, "/Users/ana/site", eventMustScanSubs, nil, "rescan", false},
		{"unmounted", roots, "/Users/ana/site", eventUnmount, nil, "unmounted", false},
		{"ids wrapped: nothing", roots, "/Users/ana/site", eventIdsWrapped, nil, "", false},
		{"a hard link made", fsRoots{dir}, filepath.Join(dir, "b"), created | eventItemIsFile | eventIsHardlink, []string{"."}, "", true},
		{"a link flag, one name left", fsRoots{dir}, filepath.Join(dir, "single"), created | eventItemIsFile | eventIsHardlink, []string{"."}, "", false},
		{"two names, no link flag", fsRoots{dir}, filepath.Join(dir, "a"), created | eventItemIsFile, []string{"."}, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := newPending(nil, false)
			p.Take() // the first take is lost
			p.fsevent(c.roots, c.path, c.flags, time.Now())
			ch := p.Take()
			var got []string
			for d := range ch.Folders {
				got = append(got, d)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.folders) {
				t.Errorf("folders %v, want %v", got, c.folders)
			}
			if ch.Lost != (c.lost != "") || !strings.Contains(ch.Why, c.lost) {
				t.Errorf("lost %v (%q), want %q", ch.Lost, ch.Why, c.lost)
			}
			if c.linked != (len(ch.Linked) == 1) {
				t.Errorf("linked %v, want %v", ch.Linked, c.linked)
			}
		})
	}
}
