package snapstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"rambar/tree"

	"rambar/internal/atomicfile"
)

// Safety labels a snapshot that holds work found nowhere else, so that
// prune removes it last (see Prune):
//
//   - SafetyRestore: what a disk held, with changes since its last save,
//     when a forced restore replaced it (saved just before the restore;
//     Of is the snapshot the restore put back).
//   - SafetyUnwritten: a Mirror disk's last save that never reached its
//     folder and holds paths the folder lacked when the disk was loaded
//     from it again (Of is the snapshot that load made of the folder).
//
// Paths are some of those paths (at most SafetyMax, in order), Count how
// many there were.
type Safety struct {
	Kind  SafetyKind `json:"kind"`
	Of    string     `json:"of,omitempty"`
	Paths []string   `json:"paths"`
	Count int        `json:"count"`
}

// SafetyKind says why a snapshot is a safety one.
type SafetyKind string

// The kinds of safety snapshot.
const (
	SafetyRestore   SafetyKind = "before-restore"
	SafetyUnwritten SafetyKind = "not-in-folder"
)

// The label of a safety snapshot is kept beside its manifest,
// snapshots/ID.safety, written after the snapshot's commit (a crash
// between the two leaves an ordinary snapshot, the newest: nothing is
// lost) and read as everything in a store is: bounded, checked, refused
// whole when damaged. Older RAMBars ignore it.
//
//	magic line, the snapshot's ID, the kind, Of, the count, the number of
//	paths named, each path as the bytes it shares with the one before and
//	the rest
const (
	SafetyExt   = ".safety"
	safetyMagic = "RAMBAR-SAFETY-1\n"
	// SafetyMax is how many of its paths a safety label names.
	SafetyMax = 100
)

// errBadSafety is a damaged safety label.
var errBadSafety = errors.New("damaged safety label")

// EncodeSafety is the label of snapshot id.
func EncodeSafety(id string, l *Safety) []byte {
	e := Encoder{B: []byte(safetyMagic)}
	e.Str(id)
	e.Str(string(l.Kind))
	e.Str(l.Of)
	e.Uv(uint64(l.Count))
	e.paths(l.Paths)
	return e.B
}

// decodeSafety reads the label of snapshot id and checks it: its ID, a
// known kind, Of a snapshot ID or none, at most SafetyMax clean paths in
// strict pathLess order, no fewer counted.
func decodeSafety(id string, b []byte) (*Safety, error) {
	d := &Decoder{B: b}
	d.Magic(safetyMagic)
	got, kind, of, count, n := d.Str(), SafetyKind(d.Str()), d.Str(), d.Uv(), d.Uv()
	if d.Bad || got != id || (kind != SafetyRestore && kind != SafetyUnwritten) || (of != "" && !ValidID(of)) ||
		n > SafetyMax || count < n || count > maxCount {
		return nil, errBadSafety
	}
	l := &Safety{Kind: kind, Of: of, Count: int(count)}
	var ok bool
	if l.Paths, ok = d.paths(n); !ok || !d.End() {
		return nil, errBadSafety
	}
	return l, nil
}

// WriteSafety labels snapshot id, durably.
func (s *Store) WriteSafety(id string, l *Safety) error {
	if _, err := os.Lstat(s.Path("snapshots", id+".snap")); err != nil {
		return fmt.Errorf("label snapshot %s: %w", id, err)
	}
	if err := atomicfile.WriteFile(s.Path("snapshots", id+SafetyExt), EncodeSafety(id, l), 0o600); err != nil {
		return tree.NoSpace(fmt.Errorf("label snapshot %s: %w", id, err))
	}
	return nil
}

// ClearSafety removes the label of snapshot id (none is no error): it is
// an ordinary snapshot again.
func (s *Store) ClearSafety(id string) error {
	if err := os.Remove(s.Path("snapshots", id+SafetyExt)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("unlabel snapshot %s: %w", id, err)
	}
	return nil
}

// Safety reads the label of snapshot id: nil when it has none.
func (s *Store) Safety(id string) (*Safety, error) {
	return readRecord(s, id, SafetyExt, decodeSafety)
}

// safetyKinds is the kind of each labelled snapshot (a damaged label
// counts as SafetyUnwritten: kept).
func (s *Store) safetyKinds() map[string]SafetyKind {
	ids, _ := s.idsOf(SafetyExt)
	out := map[string]SafetyKind{}
	for _, id := range ids {
		out[id] = SafetyUnwritten
		if l, err := s.Safety(id); err == nil && l != nil {
			out[id] = l.Kind
		}
	}
	return out
}
