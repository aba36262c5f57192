package snapstore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestStoresOfEveryFormatRead reads the stores older RAMBars wrote
// (testdata/store-v1 to v4: a full manifest, then a delta on it, of each
// format) as a store, without a disk: the current snapshot and the list
// are as written, and each snapshot's tree (a delta applied to its base)
// lists exactly the paths, of the kinds, that the disk held when it was
// saved.
func TestStoresOfEveryFormatRead(t *testing.T) {
	for _, c := range []struct{ dir, store string }{
		{"store-v1", "Old"}, {"store-v2", "Cur"}, {"store-v3", "Cur"}, {"store-v4", "Cur"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			var want struct {
				Current   string              `json:"current"`
				Snapshots []string            `json:"snapshots"`
				Trees     []map[string]string `json:"trees"`
			}
			b, err := os.ReadFile(filepath.Join("testdata", c.dir, "want.json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			s := &Store{Dir: filepath.Join("testdata", c.dir, c.store)}
			if cur, err := s.Current(); err != nil || cur != want.Current {
				t.Fatalf("current = %q %v, want %q", cur, err, want.Current)
			}
			snaps, err := s.Snapshots()
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, sn := range snaps {
				ids = append(ids, sn.ID)
			}
			if !slices.Equal(ids, want.Snapshots) {
				t.Fatalf("snapshots %v, want %v", ids, want.Snapshots)
			}
			for i, id := range want.Snapshots {
				m, err := s.Manifest(id)
				if err != nil {
					t.Fatalf("%s: %v", id, err)
				}
				got := map[string]byte{}
				for _, e := range m.Entries {
					got[e.Path] = "?fdlp"[e.Kind]
				}
				if len(got) != len(want.Trees[i]) {
					t.Errorf("%s: %d paths, the disk had %d", id, len(got), len(want.Trees[i]))
				}
				for p, line := range want.Trees[i] {
					if k, ok := got[p]; !ok || k != line[0] {
						t.Errorf("%s: %s is %q in the manifest, %q on the disk", id, p, k, line[0])
					}
				}
			}
		})
	}
}
