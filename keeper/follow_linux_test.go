//go:build linux

package keeper

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSavesByTheFeedKeepEveryNameAtTheTop: a folder made at the top of a
// followed disk whose name is RAMBar's or the system's elsewhere (macOS's
// .fseventsd, the Caches folder of app caches) but contents here is saved
// by the next save by the feed, not left to the hourly walk.
func TestSavesByTheFeedKeepEveryNameAtTheTop(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("Top")
	fw, err := f.k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if _, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw}); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, ".fseventsd/kept", "the user's")
	r, err := f.k.Save(f.ctx, v, SaveOptions{Follow: fw})
	if err != nil {
		t.Fatal(err)
	}
	if !r.ByFeed || r.Unchanged {
		t.Fatalf("save %+v: want a change saved by the feed", r.Result)
	}
	out := t.TempDir()
	if _, err := f.k.store(mustState(t, f.k, "Top")).Restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, ".fseventsd/kept")); err != nil || string(b) != "the user's" {
		t.Fatalf("the folder made at the top was not saved: %q, %v", b, err)
	}
}
