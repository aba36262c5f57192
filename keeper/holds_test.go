package keeper

import (
	"testing"
)

// TestHolding: after a restore of an older snapshot the disk holds that
// one, not the newest; a save makes the new one held.
func TestHolding(t *testing.T) {
	f := newFixture(t)
	_, v := f.kept("Work")
	var ids []string
	for _, s := range []string{"one", "two"} {
		write(t, v.MountPoint, "a", s)
		r, err := f.k.Save(f.ctx, v, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.Snapshot)
	}
	if got, _ := f.k.Holding("Work"); got != ids[1] {
		t.Errorf("after two saves holding %q, want %q", got, ids[1])
	}
	if _, err := f.k.Restore(f.ctx, v, RestoreOptions{Snapshot: ids[0], Force: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.k.Holding("Work"); got != ids[0] {
		t.Errorf("after restoring %s holding %q", ids[0], got)
	}
	if _, err := f.k.Holding("Never"); err == nil {
		t.Error("holding of a disk never kept: no error")
	}
}
