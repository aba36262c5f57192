package disks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rambar/keeper"
)

// TestAutosaveRunsWhenLastSaveIsInTheFuture: the clock was set back an
// hour after a save (last.json stamped an hour ahead, from before the boot
// clock was noted): autosave saves the changed disk at its next tick
// instead of waiting for the clock to catch up, and the save it makes is
// timed on the boot clock from then on.
func TestAutosaveRunsWhenLastSaveIsInTheFuture(t *testing.T) {
	s, _ := memService(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	v := keptDisk(t, s, "Ahead", time.Second)
	os.WriteFile(filepath.Join(v.MountPoint, "work"), []byte("unsaved"), 0o600)
	if _, err := s.Save(ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	k, _ := s.Keeper()
	st, _ := k.State("Ahead")
	ahead, _ := json.Marshal(map[string]any{"time": time.Now().Add(time.Hour).UTC(), "snapshot": st.LastSnapshot})
	if err := os.WriteFile(filepath.Join(st.Backing, "last.json"), ahead, 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(v.MountPoint, "work"), []byte("changed after the save"), 0o600)
	saved := make(chan error, 4)
	go s.Autosave(ctx, 50*time.Millisecond, func(name string, r keeper.Result, err error) { saved <- err })
	select {
	case err := <-saved:
		if err != nil {
			t.Fatalf("autosave: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no autosave while the last save is stamped an hour ahead")
	}
	cancel()
	st, _ = k.State("Ahead")
	if st.LastSaveClock.Boot == "" || st.LastSave.After(time.Now()) {
		t.Errorf("after the autosave: last save %v, boot clock %+v", st.LastSave, st.LastSaveClock)
	}
	if dirty, err := k.Dirty(v); err != nil || dirty {
		t.Errorf("still unsaved after the autosave: %v, %v", dirty, err)
	}
}
