package snapstore

import (
	"slices"
	"testing"

	"rambar/tree"
)

// TestInUseRecordRoundTripAndRejectsDamage: the label of a snapshot taken
// while in use reads back as written, and a crafted or damaged one is
// refused whole.
func TestInUseRecordRoundTripAndRejectsDamage(t *testing.T) {
	id := "20261202T010203.000004Z"
	u := &InUse{Paths: []string{".", "Maildir/cur", "Maildir/cur/msg1", "Maildir/new", "db/x.sqlite-wal"}, Count: 7}
	b := EncodeInUse(id, u)
	got, err := decodeInUse(id, b)
	if err != nil || got.Count != 7 || !slices.Equal(got.Paths, u.Paths) {
		t.Fatalf("round trip = %+v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"another snapshot's":  EncodeInUse("20261202T010203.000005Z", u),
		"cut short":           b[:len(b)-2],
		"bytes after its end": append(slices.Clone(b), 0),
		"counting fewer":      EncodeInUse(id, &InUse{Paths: u.Paths, Count: 2}),
		"out of order":        EncodeInUse(id, &InUse{Paths: []string{"b", "a"}, Count: 2}),
		"twice":               EncodeInUse(id, &InUse{Paths: []string{"a", "a"}, Count: 2}),
		"climbing out":        EncodeInUse(id, &InUse{Paths: []string{"../etc"}, Count: 1}),
		"absolute":            EncodeInUse(id, &InUse{Paths: []string{"/etc"}, Count: 1}),
		"a NUL":               EncodeInUse(id, &InUse{Paths: []string{"a\x00b"}, Count: 1}),
		"too many":            EncodeInUse(id, &InUse{Paths: make([]string, InUseMax+1), Count: InUseMax + 1}),
		"not one":             []byte("RAMBAR-INUSE-9\n"),
	} {
		if _, err := decodeInUse(id, bad); err == nil {
			t.Errorf("%s record accepted", name)
		}
	}
}

// TestIndexLinkTargetsRoundTripAndAreChecked: an index keeps each path's
// hard-link target and watched sum; a target that is not a clean path
// before its link makes the index bad.
func TestIndexLinkTargetsRoundTripAndAreChecked(t *testing.T) {
	w := NewIndexWriter("20260101T000000.000001Z", "d", 3)
	w.Add(".", tree.Ident{Ino: 1}, "", nil)
	w.Add("a", tree.Ident{Ino: 2}, "", &ContentSum{1, 2, 3})
	w.Add("b", tree.Ident{Ino: 2}, "a", nil)
	x, err := decodeIndex(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	c := x.Cursor()
	var links []string
	var watched []bool
	for _, _, ok := c.Next(); ok; _, _, ok = c.Next() {
		links, watched = append(links, string(c.Link)), append(watched, c.Watched)
	}
	if !slices.Equal(links, []string{"", "", "a"}) || !slices.Equal(watched, []bool{false, true, false}) {
		t.Errorf("links %q, watched %v", links, watched)
	}
	for name, link := range map[string]string{"after it": "c", "itself": "b", "climbing out": "../a", "the root": "."} {
		w := NewIndexWriter("", "d", 3)
		w.Add(".", tree.Ident{}, "", nil)
		w.Add("a", tree.Ident{}, "", nil)
		w.Add("b", tree.Ident{}, link, nil)
		if _, err := decodeIndex(w.Bytes()); err == nil {
			t.Errorf("a link target %s accepted", name)
		}
	}
}
