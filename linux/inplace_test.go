//go:build linux

package linux

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// TestCoverNeverFollowsASymlink: a folder swapped for a symlink (to a
// folder of root's) after it was checked is neither covered nor hidden:
// root's mounts never land where the link points.
func TestCoverNeverFollowsASymlink(t *testing.T) {
	e := newTestEngine(t)
	ctx := context.Background()
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: "Swap", Size: 16 * ramdisk.MiB, Force: true}, ramdisk.Facts{Caps: e.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Eject(context.Background(), v, true) })
	base := t.TempDir()
	victim := filepath.Join(base, "roots")
	os.Mkdir(victim, 0o755)
	os.WriteFile(filepath.Join(victim, "keep"), []byte("root's"), 0o644)
	link := filepath.Join(base, "site")
	os.Symlink(victim, link)
	inner := filepath.Join(base, "dir")
	os.Mkdir(inner, 0o755)
	os.Symlink(base, filepath.Join(inner, "up")) // a symlink in the middle of the path
	hidden := filepath.Join(base, "hidden")
	for _, folder := range []string{link, filepath.Join(inner, "up", "roots")} {
		if _, err := e.Cover(ctx, v, folder); err == nil {
			t.Errorf("Cover %s went through", folder)
		}
		if err := e.HideFolder(ctx, folder, hidden); err == nil {
			t.Errorf("HideFolder %s went through", folder)
		}
	}
	var st, parent unix.Stat_t
	unix.Stat(victim, &st)
	unix.Stat(base, &parent)
	if st.Dev != parent.Dev {
		t.Fatal("something was mounted over the symlink's target")
	}
	if b, _ := os.ReadFile(filepath.Join(victim, "keep")); string(b) != "root's" {
		t.Errorf("the target holds %q", b)
	}
	if e.FolderHidden(hidden) {
		t.Error("a hidden copy was made")
	}
}
