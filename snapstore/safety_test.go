package snapstore

import (
	"maps"
	"slices"
	"testing"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// TestSafetyLabelRoundTripAndRejectsDamage: the label of a safety snapshot
// reads back as written, and a crafted or damaged one is refused whole.
func TestSafetyLabelRoundTripAndRejectsDamage(t *testing.T) {
	id, of := "20261202T010203.000004Z", "20261202T000000.000001Z"
	l := &Safety{Kind: SafetyRestore, Of: of, Paths: []string{"a", "a/b.db", "notes.txt"}, Count: 9}
	b := EncodeSafety(id, l)
	got, err := decodeSafety(id, b)
	if err != nil || got.Kind != l.Kind || got.Of != of || got.Count != 9 || !slices.Equal(got.Paths, l.Paths) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"another snapshot's", EncodeSafety("20261202T010203.000005Z", l)},
		{"cut short", b[:len(b)-2]},
		{"bytes after its end", append(slices.Clone(b), 0)},
		{"an unknown kind", EncodeSafety(id, &Safety{Kind: "forever", Count: 0})},
		{"of no snapshot", EncodeSafety(id, &Safety{Kind: SafetyRestore, Of: "../x", Count: 0})},
		{"counting fewer", EncodeSafety(id, &Safety{Kind: SafetyRestore, Paths: l.Paths, Count: 2})},
		{"out of order", EncodeSafety(id, &Safety{Kind: SafetyRestore, Paths: []string{"b", "a"}, Count: 2})},
		{"climbing out", EncodeSafety(id, &Safety{Kind: SafetyUnwritten, Paths: []string{"../etc"}, Count: 1})},
		{"absolute", EncodeSafety(id, &Safety{Kind: SafetyUnwritten, Paths: []string{"/etc"}, Count: 1})},
		{"too many", EncodeSafety(id, &Safety{Kind: SafetyUnwritten, Paths: make([]string, SafetyMax+1), Count: SafetyMax + 1})},
		{"not one", []byte("RAMBAR-SAFETY-9\n")},
	} {
		if _, err := decodeSafety(id, tc.b); err == nil {
			t.Errorf("%s label accepted", tc.name)
		}
	}
}

// TestKeptSafetyIsPrunedLast: which safety snapshots prune keeps. None
// counts among the saves kept; not-in-folder ones are always kept;
// before-restore ones the newest keepN.
func TestKeptSafetyIsPrunedLast(t *testing.T) {
	ids := []string{"1", "2", "3", "4", "5", "6"}
	for _, tc := range []struct {
		name  string
		kinds map[string]SafetyKind
		keepN int
		want  []string
	}{
		{"none", nil, 3, nil},
		{"one old before-restore", map[string]SafetyKind{"1": SafetyRestore}, 1, []string{"1"}},
		{"more before-restore than kept", map[string]SafetyKind{"1": SafetyRestore, "3": SafetyRestore, "5": SafetyRestore}, 2, []string{"3", "5"}},
		{"not-in-folder never counted", map[string]SafetyKind{"1": SafetyUnwritten, "2": SafetyUnwritten, "4": SafetyRestore, "6": SafetyRestore}, 1,
			[]string{"1", "2", "6"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := slices.Sorted(maps.Keys(keptSafety(ids, tc.kinds, tc.keepN)))
			if !slices.Equal(got, tc.want) {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzDecodeSafety feeds the safety label's decoder arbitrary bytes: it
// must never panic, and whatever it accepts has clean paths in order and
// reads back the same once encoded.
func FuzzDecodeSafety(f *testing.F) {
	id := "20261202T010203.000004Z"
	f.Add(EncodeSafety(id, &Safety{Kind: SafetyUnwritten, Of: id, Paths: []string{"a", "a/b"}, Count: 3}))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := decodeSafety(id, b)
		if err != nil {
			return
		}
		for i, p := range l.Paths {
			if CheckPath(p) != nil || (i > 0 && !tree.PathLess(l.Paths[i-1], p)) {
				t.Fatalf("accepted path %q", p)
			}
		}
		again, err := decodeSafety(id, EncodeSafety(id, l))
		if err != nil || again.Kind != l.Kind || again.Of != l.Of || again.Count != l.Count || !slices.Equal(again.Paths, l.Paths) {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, l)
		}
	})
}

// TestLacksNamesWhatOnlyTheSnapshotHolds: what a Mirror load finds only
// in an old snapshot: paths the folder lacks, and files whose version in
// the snapshot is newer; not a folder both hold, nor a file the folder
// changed later.
func TestLacksNamesWhatOnlyTheSnapshotHolds(t *testing.T) {
	at := func(sec int64) unix.Timespec { return unix.Timespec{Sec: sec} }
	file := func(p string, size, sec int64) tree.Entry {
		return tree.Entry{Path: p, Kind: tree.KindFile, Size: size, MTime: at(sec)}
	}
	dir := func(p string, sec int64) tree.Entry { return tree.Entry{Path: p, Kind: tree.KindDir, MTime: at(sec)} }
	for _, tc := range []struct {
		name         string
		snap, folder []tree.Entry
		want         []string
		n            int
	}{
		{"the same", []tree.Entry{dir(".", 1), file("a", 1, 1)}, []tree.Entry{dir(".", 1), file("a", 1, 1)}, nil, 0},
		{"a file missing", []tree.Entry{dir(".", 2), file("a", 1, 1), file("draft.md", 5, 2)}, []tree.Entry{dir(".", 1), file("a", 1, 1)},
			[]string{"draft.md"}, 1},
		{"a folder missing", []tree.Entry{dir(".", 2), dir("new", 2), file("new/x", 1, 2)}, []tree.Entry{dir(".", 1)}, []string{"new", "new/x"}, 2},
		{"newer in the snapshot", []tree.Entry{dir(".", 1), file("a", 9, 5)}, []tree.Entry{dir(".", 1), file("a", 1, 1)}, []string{"a"}, 1},
		{"newer in the folder", []tree.Entry{dir(".", 1), file("a", 1, 1)}, []tree.Entry{dir(".", 9), file("a", 9, 5)}, nil, 0},
		{"a folder changed", []tree.Entry{dir(".", 5), dir("d", 5)}, []tree.Entry{dir(".", 1), dir("d", 1)}, nil, 0},
		{"named up to max", []tree.Entry{dir(".", 1), file("a", 1, 1), file("b", 1, 1), file("c", 1, 1)}, []tree.Entry{dir(".", 1)},
			[]string{"a", "b"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Lacks(tc.snap, tc.folder, 2)
			if !slices.Equal(got.Paths, tc.want) || got.N != tc.n {
				t.Errorf("Lacks = %v (%d), want %v (%d)", got.Paths, got.N, tc.want, tc.n)
			}
		})
	}
}
