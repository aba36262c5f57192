package foldersync

import (
	"strings"
	"testing"

	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A version in the plan tests: "" absent, "d" a folder, "l:T" a symlink to
// T, anything else a file with those contents; a trailing "!" on the
// folder's version makes it immutable, "+" append-only; "@M" on the disk's
// version gives it mode M (metadata).
func planSide(v string, disk bool) (*syncrec.Side, *fstate) {
	if v == "" {
		return nil, nil
	}
	var flags tree.FileFlags
	switch {
	case strings.HasSuffix(v, "!"):
		v, flags = strings.TrimSuffix(v, "!"), tree.FlagImmutable
	case strings.HasSuffix(v, "+"):
		v, flags = strings.TrimSuffix(v, "+"), tree.FlagAppendOnly
	}
	mode := uint32(0o644)
	if c, m, ok := strings.Cut(v, "@"); ok {
		v = c
		mode = 0o600
		if m == "x" {
			mode = 0o755
		}
	}
	s := &syncrec.Side{Kind: tree.KindFile, Mode: mode, Hash: syncrec.LinkHash("file " + v), Meta: disk}
	var st unix.Stat_t
	setMode(&st.Mode, unix.S_IFREG|mode)
	switch {
	case v == "d":
		s = &syncrec.Side{Kind: tree.KindDir, Mode: 0o755, Meta: disk}
		setMode(&st.Mode, unix.S_IFDIR|0o755)
	case strings.HasPrefix(v, "l:"):
		s.Kind, s.Hash = tree.KindSymlink, syncrec.LinkHash(v[2:])
		setMode(&st.Mode, unix.S_IFLNK|0o777)
	}
	return s, &fstate{E: tree.FsEntry{St: st}, hash: s.Hash, flags: flags}
}

// setMode sets a stat mode (uint32 on Linux, uint16 on macOS).
func setMode[T ~uint16 | ~uint32](p *T, m uint32) { *p = T(m) }

func TestDecide(t *testing.T) {
	cases := []struct {
		name                 string
		base, folder, disk   string
		act                  op
		aside, outside, conf bool
		what                 string // part of the conflict's words
	}{
		{"unchanged", "1", "1", "1", opNone, false, false, false, ""},
		{"disk edit", "1", "1", "2", opPut, false, false, false, ""},
		{"outside edit", "1", "x", "1", opNone, false, true, false, ""},
		{"same edit on both sides", "1", "2", "2", opNone, false, false, false, ""},
		{"both edited", "1", "x", "2", opPut, true, false, true, "disk's version is under the name"},
		{"disk delete", "1", "1", "", opRemove, false, false, false, ""},
		{"disk delete, outside edit", "1", "x", "", opNone, false, false, true, "folder's version is kept"},
		{"outside delete", "1", "", "1", opNone, false, true, false, ""},
		{"outside delete, disk edit", "1", "", "2", opPut, false, false, true, "written back"},
		{"disk add", "", "", "2", opPut, false, false, false, ""},
		{"both added differently", "", "x", "2", opPut, true, false, true, "changed on both sides"},
		{"a folder keeps its name against the disk's file", "", "d", "2", opCopy, false, false, true, "the disk's is the copy"},
		{"the disk's folder over the folder's changed file", "1", "x", "d", opPut, true, false, true, "the folder keeps the name"},
		{"the disk's folder over the folder's file", "1", "1", "d", opPut, false, false, false, ""},
		{"the disk's file over the folder's folder", "d", "d", "2", opOverDir, false, false, false, ""},
		{"a symlink changed on the disk", "l:a", "l:a", "l:b", opPut, false, false, false, ""},
		{"metadata only on the disk", "1", "1", "1@x", opMeta, false, false, false, ""},
		{"metadata on the disk, content in the folder", "1", "x", "1@x", opNone, false, true, false, ""},
		{"immutable, disk edit", "1", "1!", "2", opCopy, false, false, true, "immutable (chattr +i)"},
		{"immutable, both edited", "1", "x!", "2", opCopy, false, false, true, "immutable (chattr +i)"},
		{"append-only, disk delete", "1", "1+", "", opNone, false, false, true, "append-only (chattr +a)"},
		{"immutable, metadata on the disk", "1", "1!", "1@x", opNone, false, false, true, "immutable"},
		{"immutable, unchanged on the disk", "1", "1!", "1", opNone, false, false, false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base, _ := planSide(c.base, true)
			_, f := planSide(c.folder, false)
			ds, _ := planSide(c.disk, true)
			it := &planItem{Item: Item{Path: "a.txt"}, Base: base, LastF: base, F: f, DS: ds}
			it.decide()
			what := it.Conflict
			if strings.Contains(c.what, "chattr") && !strings.Contains(what, "chattr") {
				what = strings.NewReplacer("uchg", "chattr +i", "uappnd", "chattr +a").Replace(what)
			}
			if it.op != c.act || it.Aside != c.aside || it.Outside != c.outside || (it.Conflict != "") != c.conf ||
				!strings.Contains(what, c.what) {
				t.Errorf("act %d aside %v outside %v conflict %q; want act %d aside %v outside %v conflict %v (%q)",
					it.op, it.Aside, it.Outside, it.Conflict, c.act, c.aside, c.outside, c.conf, c.what)
			}
		})
	}
}

func TestDecideTopFolderKeepsItsNameAndTakesTheDisksMetadata(t *testing.T) {
	d, f := planSide("d", true)
	it := &planItem{Item: Item{Path: "."}, Base: d, F: f, DS: &syncrec.Side{Kind: tree.KindDir, Mode: 0o700, Meta: true}}
	it.decide()
	if it.op != opMeta {
		t.Errorf("the top folder: act %d, want opMeta", it.op)
	}
}
