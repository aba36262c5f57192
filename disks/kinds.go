package disks

import (
	"path/filepath"

	"rambar/internal/record"
)

// The records disks keeps in the data folder are each of one kind
// (internal/record): written whole and durably, read bounded, and kept
// under a key made from the disk's name by the platform's one rule
// (record.Platform: exact on Linux, folded on macOS); a record an older
// RAMBar kept under the other rule's key is still read.

// kind is the record kind kept in the data folder's folder dir; with no
// data folder it keeps nothing.
func (s *Service) kind(dir string) record.Kind {
	k := record.Kind{Names: record.Platform}
	if s.Paths.Data != "" {
		k.Dir = filepath.Join(s.Paths.Data, dir)
	}
	return k
}
