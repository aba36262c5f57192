package disks

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// A disk's records in the data folder (restoring/, options/) are kept
// under its exact name: on Linux "Work" and "work" are two disks, and one's
// record must never stand for, or replace, the other's. recordKey escapes
// the name as lockName does but keeps its letter case (an upper-case letter
// is %XX, so the file name is the same on a case-insensitive data folder).
// RAMBar before this kept them under the name folded to lower case; such a
// record is still read, and removed when replaced, when the name in it is
// the disk's exactly.

// recordKey is the file name, without extension, of a disk's record.
func recordKey(name string) string {
	var b strings.Builder
	for _, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return shortKey(b.String())
}

// legacyKey is the file name the record had when names were folded.
func legacyKey(name string) string { return strings.TrimSuffix(lockName(name), ".lock") }

// recordPaths are where a disk's record of kind (restoring, options) is
// written now, and where an older RAMBar wrote it ("" when the same).
func (s *Service) recordPaths(kind, name string) (now, legacy string) {
	dir := filepath.Join(s.Paths.Data, kind)
	now = filepath.Join(dir, recordKey(name)+".json")
	if l := filepath.Join(dir, legacyKey(name)+".json"); l != now {
		legacy = l
	}
	return now, legacy
}

// readRecord reads the disk's record of kind, bounded at limit bytes: the
// one kept under its exact name, or else an older one whose name is the
// disk's exactly (or cannot be read: a damaged record errs on the side of
// keeping data). found is false when there is neither.
func (s *Service) readRecord(kind, name string, limit int64) (data []byte, found bool) {
	now, legacy := s.recordPaths(kind, name)
	if b, err := readLimited(now, limit); err == nil {
		return b, true
	}
	if legacy == "" {
		return nil, false
	}
	b, err := readLimited(legacy, limit)
	if err != nil || json.Valid(b) && recordName(b) != name {
		return nil, false
	}
	return b, true
}

// dropLegacy removes the older record of the disk, if it is this disk's.
func (s *Service) dropLegacy(kind, name string) {
	_, legacy := s.recordPaths(kind, name)
	if legacy == "" {
		return
	}
	if b, err := readLimited(legacy, 64<<10); err == nil && recordName(b) == name {
		os.Remove(legacy)
	}
}

// removeRecord removes the disk's record of kind, the older one too.
func (s *Service) removeRecord(kind, name string) {
	now, _ := s.recordPaths(kind, name)
	os.Remove(now)
	s.dropLegacy(kind, name)
}

func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// recordName is the "name" a record holds; "" when it has none.
func recordName(b []byte) string {
	var r struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &r) != nil {
		return ""
	}
	return r.Name
}
