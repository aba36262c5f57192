package linux

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestRootChownNeverFollowsALink: a mount point swapped for a link after
// it was checked (in a mount root the user owns) is given to the user as
// the link itself, never what it names (it handed over root's file).
func TestRootChownNeverFollowsALink(t *testing.T) {
	victim := filepath.Join(t.TempDir(), "roots")
	os.WriteFile(victim, nil, 0o600)
	link := filepath.Join(t.TempDir(), "Work")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := (rootAdmin{}).chown(context.Background(), link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(victim)
	if uid := st.Sys().(*syscall.Stat_t).Uid; uid != 0 {
		t.Errorf("the file the link named is now uid %d's", uid)
	}
}
