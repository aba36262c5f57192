package snapstore

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"rambar/tree"
)

// FuzzDecodeManifest feeds the manifest decoder arbitrary bytes (seeds in
// testdata/fuzz/FuzzDecodeManifest: manifests of each version, damaged
// and crafted ones). It must never panic; whatever it accepts is valid
// (checkEntries) and encodes back to the same manifest.
func FuzzDecodeManifest(f *testing.F) {
	f.Add(EncodeManifest(&Manifest{Header: Header{ID: "20260101T000000.000001Z"},
		Entries: []tree.Entry{{Path: ".", Kind: tree.KindDir, Mode: 0o755}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := decodeManifest(b, false); err != nil {
			return
		}
		m, err := decodeManifest(b, true)
		if err != nil {
			return
		}
		if err := checkEntries(m); err != nil {
			t.Fatalf("accepted an invalid manifest: %v", err)
		}
		_ = checkTree(m.Entries)
		for _, e := range m.Entries {
			if e.Kind == tree.KindFile && e.HardLink == "" {
				if _, err := ObjRefOf(e); err != nil {
					t.Fatalf("accepted a bad object: %v", err)
				}
			}
		}
		again, err := decodeManifest(EncodeManifest(m), true)
		if err != nil {
			t.Fatalf("re-encoded manifest refused: %v", err)
		}
		m.Refs, again.Refs = nil, nil // rebuilt from the entries when written
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the manifest:\n%+v\n%+v", m, again)
		}
	})
}

// FuzzDecodeIndex feeds the index decoder arbitrary bytes (seeds in
// testdata/fuzz/FuzzDecodeIndex). It must never panic; whatever it accepts
// has clean paths in scan order and encodes back to the same index.
func FuzzDecodeIndex(f *testing.F) {
	f.Add(encodeIndexOf("20260101T000000.000001Z", "", []string{".", "a", "a/b", "ab"}, []tree.Ident{{}, {Ino: 1}, {Ino: 9, MTime: 3}, {}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		x, err := decodeIndex(b)
		if err != nil {
			return
		}
		ps, ids, err := indexEntries(x)
		if err != nil {
			t.Fatalf("accepted, then failed to walk: %v", err)
		}
		for i, p := range ps {
			if CheckPath(p) != nil || (i > 0 && !tree.PathLess(ps[i-1], p)) {
				t.Fatalf("accepted path %q", p)
			}
		}
		again, err := decodeIndex(encodeIndexOf(x.Snapshot, x.DiskID, ps, ids))
		if err != nil || again.Snapshot != x.Snapshot || again.DiskID != x.DiskID {
			t.Fatalf("round trip: %+v %v", again, err)
		}
		ps2, ids2, err := indexEntries(again)
		if err != nil || !reflect.DeepEqual(ps, ps2) || !reflect.DeepEqual(ids, ids2) {
			t.Fatalf("round trip: %v %v %v", ps2, ids2, err)
		}
	})
}

// TestFuzzSeedsDecodeAsNamed: the valid seeds are accepted (so the fuzzers
// start from real manifests and indexes), the crafted ones refused.
func TestFuzzSeedsDecodeAsNamed(t *testing.T) {
	cases := []struct {
		fuzz, name string
		ok         bool
	}{
		{"FuzzDecodeManifest", "full", true}, {"FuzzDecodeManifest", "delta", true}, {"FuzzDecodeManifest", "v1", true},
		{"FuzzDecodeManifest", "path-dotdot", false}, {"FuzzDecodeManifest", "path-abs", false},
		{"FuzzDecodeManifest", "path-nul", false}, {"FuzzDecodeManifest", "path-empty", false},
		{"FuzzDecodeManifest", "obj-climbs", false}, {"FuzzDecodeManifest", "truncated", false},
		{"FuzzDecodeManifest", "v3-full", true}, {"FuzzDecodeManifest", "v3-extents-overlap", false},
		{"FuzzDecodeManifest", "v3-extent-past-end", false}, {"FuzzDecodeManifest", "v3-hardlink-with-object", false},
		{"FuzzDecodeManifest", "v3-hardlink-climbs", false}, {"FuzzDecodeManifest", "v3-fifo-with-data", false},
		{"FuzzDecodeManifest", "v3-bad-nsec", false},
		{"FuzzDecodeManifest", "v4-full", true}, {"FuzzDecodeManifest", "v4-delta", true},
		{"FuzzDecodeManifest", "v4-truncated", false}, {"FuzzDecodeManifest", "v4-save-climbs", false},
		{"FuzzDecodeManifest", "v4-save-not-in-table", false}, {"FuzzDecodeManifest", "v4-pack-before-start", false},
		{"FuzzDecodeManifest", "v4-extents-overlap", false}, {"FuzzDecodeManifest", "v4-hardlink-with-object", false},
		{"FuzzDecodeManifest", "v4-path-dotdot", false}, {"FuzzDecodeManifest", "v4-prefix-too-long", false},
		{"FuzzDecodeManifest", "v4-bad-flags", false},
		{"FuzzDecodeIndex", "v2", true}, {"FuzzDecodeIndex", "v1", true}, {"FuzzDecodeIndex", "store-v1", true},
		{"FuzzDecodeIndex", "dotdot", false}, {"FuzzDecodeIndex", "v3", true},
		{"FuzzDecodeIndex", "v3-prefix-past-previous", false}, {"FuzzDecodeIndex", "v3-out-of-order", false},
		{"FuzzDecodeIndex", "v4", true}, {"FuzzDecodeIndex", "v4-link-after", false},
	}
	for _, c := range cases {
		b, err := os.ReadFile(filepath.Join("testdata/fuzz", c.fuzz, c.name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(b), "\n", 3)
		raw, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s/%s: %v", c.fuzz, c.name, err)
		}
		if c.fuzz == "FuzzDecodeManifest" {
			_, err = decodeManifest([]byte(raw), true)
		} else {
			_, err = decodeIndex([]byte(raw))
		}
		if (err == nil) != c.ok {
			t.Errorf("%s/%s: decode error %v, want accepted: %v", c.fuzz, c.name, err, c.ok)
		}
	}
}
