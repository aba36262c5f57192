package disks

import (
	"path/filepath"

	"rambar/internal/record"
)

// kind is the record kind kept in the data folder's folder dir; with no
// data folder it keeps nothing.
func (s *Service) kind(dir string) record.Kind {
	k := record.Kind{Names: record.Platform}
	if s.Paths.Data != "" {
		k.Dir = filepath.Join(s.Paths.Data, dir)
	}
	return k
}
