package snapshot

import (
	"errors"
	"os"
	"testing"
	"time"

	"rambar/snapstore"
	"rambar/tree"
)

// TestManifestIsCheckedAsItIsWritten: a save whose manifest would not
// read back (a hard link to a path that is no file before it, a path
// outside any folder, paths out of order) fails as it writes it, and
// leaves no manifest and no new current
func TestManifestIsCheckedAsItIsWritten(t *testing.T) {
	root := tree.Entry{Path: ".", Kind: tree.KindDir, Mode: 0o755}
	dir := tree.Entry{Path: "a", Kind: tree.KindDir, Mode: 0o755}
	file := tree.Entry{Path: "a/x", Kind: tree.KindFile, Mode: 0o644, Size: 1, Obj: tree.ObjName{Save: "20261202T000000.000000Z", Num: 1}}
	for name, entries := range map[string][]tree.Entry{
		"a link to a path gone":    {root, dir, file, {Path: "z", Kind: tree.KindFile, Mode: 0o644, HardLink: "m/x"}},
		"a link to a later file":   {root, {Path: "0", Kind: tree.KindFile, Mode: 0o644, HardLink: "a/x"}, dir, file},
		"a path in no folder":      {root, {Path: "b/x", Kind: tree.KindFile, Mode: 0o644, Obj: file.Obj}},
		"paths out of order":       {root, dir, {Path: "0", Kind: tree.KindDir, Mode: 0o755}},
		"no root":                  {dir},
		"a folder with an object":  {root, {Path: "a", Kind: tree.KindDir, Obj: file.Obj}},
		"a symlink with no target": {root, {Path: "l", Kind: tree.KindSymlink}},
	} {
		t.Run(name, func(t *testing.T) {
			s := &Store{Store: &snapstore.Store{Dir: t.TempDir()}}
			id := snapstore.NewID(time.Now(), "")
			m := &snapstore.Manifest{Header: snapstore.Header{ID: id, Created: time.Now()}, Entries: entries}
			err := s.writeSnapshot(streamOf(m))
			if !errors.Is(err, snapstore.ErrBadManifest) {
				t.Fatalf("write = %v, want a damaged manifest refused", err)
			}
			if _, err := os.Stat(s.Path("snapshots", id+".snap")); err == nil {
				t.Error("the refused manifest was left")
			}
		})
	}
}
