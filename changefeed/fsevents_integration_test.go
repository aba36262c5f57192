//go:build darwin && integration

package changefeed

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestIntegrationFSEventsHardLink follows a folder under the temporary
// folder (/var/folders/…, which the kernel names /private/var/folders/…:
// the root resolved with F_GETPATH must take both) with the real FSEvents,
// and makes a hard link there. The feed must hear the folder change without
// losing itself; whether FSEvents flags the link (ItemIsHardlink, which
// fills Changes.Linked) is logged: the first run on a Mac answers it.
func TestIntegrationFSEventsHardLink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := filepath.Join(dir, "src", "a.txt")
	if err := os.WriteFile(first, []byte("one file"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	t.Logf("roots: %q", f.roots)
	f.Take() // the first take is lost: nothing before the stream is known
	time.Sleep(500 * time.Millisecond)
	if err := os.Link(first, filepath.Join(dir, "src", "b.txt")); err != nil {
		t.Fatal(err)
	}
	var c Changes
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if c = f.Take(); !c.Empty() {
			break
		}
	}
	if c.Lost {
		t.Fatalf("the feed lost itself at a hard link: %s", c.Why)
	}
	if _, ok := c.Folders["src"]; !ok {
		t.Fatalf("the feed did not hear src change at a hard link: %+v", c)
	}
	fi, _ := os.Stat(first)
	ino := fi.Sys().(*syscall.Stat_t).Ino
	_, linked := c.Linked[ino]
	t.Logf("FSEvents flagged the hard link (ItemIsHardlink → Changes.Linked): %v (%+v)", linked, c)
}
