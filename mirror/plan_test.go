package mirror

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A version in the plan tests: "" absent, "d" a folder, anything else a
// file with those contents.
func planFolder(v map[string]string) map[string]*fstate {
	out := map[string]*fstate{".": {e: &fsEntry{rel: ".", st: unix.Stat_t{Mode: unix.S_IFDIR | 0o755}}}}
	for p, c := range v {
		e := &fsEntry{rel: p, st: unix.Stat_t{Mode: unix.S_IFREG | 0o644}}
		if c == "d" {
			e.st.Mode = unix.S_IFDIR | 0o755
			c = ""
		}
		out[p] = &fstate{e: e, hash: c}
	}
	return out
}

func planDisk(v map[string]string) []Entry {
	out := []Entry{{Path: ".", Kind: KindDir, Mode: 0o755}}
	for p, c := range v {
		e := Entry{Path: p, Kind: KindFile, Mode: 0o644, Obj: objName{Save: "obj-" + c}}
		if c == "d" {
			e = Entry{Path: p, Kind: KindDir, Mode: 0o755}
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return pathLess(out[i].Path, out[j].Path) })
	return out
}

// planBase is a record where folder and disk both held v.
func planBase(v map[string]string) *syncRecord {
	r := &syncRecord{Complete: true}
	r.Paths = append(r.Paths, syncPath{Path: ".", F: &side{Kind: KindDir, Mode: 0o755}, D: &side{Kind: KindDir, Mode: 0o755}})
	for p, c := range v {
		s := &side{Kind: KindFile, Mode: 0o644, Hash: c, Obj: objName{Save: "obj-" + c}.String()}
		if c == "d" {
			s = &side{Kind: KindDir, Mode: 0o755}
		}
		f := *s
		f.Obj = ""
		r.Paths = append(r.Paths, syncPath{Path: p, F: &f, D: s})
	}
	sort.Slice(r.Paths, func(i, j int) bool { return pathLess(r.Paths[i].Path, r.Paths[j].Path) })
	return r
}

func TestMakePlan(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 15, 0, 0, time.UTC)
	copyOf := func(p string) string { return conflictName(p, at, 1) }
	cases := []struct {
		name               string
		base, folder, disk map[string]string
		want               string // path=source:version, sorted, "." left out
		conflicts          int
		deletedOutside     int
	}{
		{"unchanged", map[string]string{"a": "1"}, map[string]string{"a": "1"}, map[string]string{"a": "1"}, "a=folder:1", 0, 0},
		{"disk edit", map[string]string{"a": "1"}, map[string]string{"a": "1"}, map[string]string{"a": "2"}, "a=disk:2", 0, 0},
		{"outside edit", map[string]string{"a": "1"}, map[string]string{"a": "x"}, map[string]string{"a": "1"}, "a=folder:x", 0, 0},
		{"same edit both", map[string]string{"a": "1"}, map[string]string{"a": "2"}, map[string]string{"a": "2"}, "a=folder:2", 0, 0},
		{"both edited", map[string]string{"a.txt": "1"}, map[string]string{"a.txt": "x"}, map[string]string{"a.txt": "2"},
			copyOf("a.txt") + "=folder:x a.txt=disk:2", 1, 0},
		{"disk delete", map[string]string{"a": "1"}, map[string]string{"a": "1"}, nil, "", 0, 0},
		{"disk delete, outside edit", map[string]string{"a": "1"}, map[string]string{"a": "x"}, nil, "a=folder:x", 1, 0},
		{"outside delete", map[string]string{"a": "1"}, nil, map[string]string{"a": "1"}, "", 0, 1},
		{"outside delete, disk edit", map[string]string{"a": "1"}, nil, map[string]string{"a": "2"}, "a=disk:2", 1, 0},
		{"outside add", nil, map[string]string{"n": "x"}, nil, "n=folder:x", 0, 0},
		{"disk add", nil, nil, map[string]string{"n": "2"}, "n=disk:2", 0, 0},
		{"no record: both added differently", nil, map[string]string{"n": "x"}, map[string]string{"n": "2"},
			"n=disk:2 " + copyOf("n") + "=folder:x", 1, 0},
		{"a folder keeps its name against a file", nil, map[string]string{"d": "d", "d/f": "x"}, map[string]string{"d": "2"},
			"d=dir d/f=folder:x " + copyOf("d") + "=disk:2", 1, 0},
		{"a folder the disk removed stays for an outside addition",
			map[string]string{"d": "d", "d/a": "1"}, map[string]string{"d": "d", "d/a": "1", "d/new": "x"}, nil,
			"d=dir d/new=folder:x", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var rec *syncRecord
			if c.base != nil {
				rec = planBase(c.base)
			}
			hash := func(e *Entry) (string, error) { return strings.TrimPrefix(e.Obj.Save, "obj-"), nil }
			items, _, wb, err := makePlan(rec, planFolder(c.folder), planDisk(c.disk), hash, at)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, it := range items {
				switch {
				case it.Path == ".":
				case it.From == makeDir:
					got = append(got, it.Path+"=dir")
				case it.From == fromDisk:
					got = append(got, it.Path+"=disk:"+it.Hash)
				default:
					got = append(got, fmt.Sprintf("%s=folder:%s", it.Path, it.Hash))
				}
			}
			if g := strings.Join(got, " "); g != c.want {
				t.Errorf("plan %q, want %q", g, c.want)
			}
			if len(wb.Conflicts) != c.conflicts || len(wb.DeletedOutside) != c.deletedOutside {
				t.Errorf("conflicts %+v, deleted outside %v", wb.Conflicts, wb.DeletedOutside)
			}
		})
	}
}
