package disks

import (
	"path/filepath"

	"rambar/internal/record"
)

// kind is the record kind kept in the data folder's folder dir, each
// record read up to limit bytes (0: record.MaxSize); with no data folder
// it keeps nothing.
func (s *Service) kind(dir string, limit int64) record.Kind {
	k := record.Kind{Names: record.Platform, Limit: limit}
	if s.Paths.Data != "" {
		k.Dir = filepath.Join(s.Paths.Data, dir)
	}
	return k
}
