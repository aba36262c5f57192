package snapshot

import (
	"strings"
	"testing"

	"rambar/tree"
)

func TestNeedCountsWhatARestoreAllocates(t *testing.T) {
	file := func(size int64) tree.Entry { return tree.Entry{Path: "f", Kind: tree.KindFile, Size: size} }
	dir := tree.Entry{Path: "d", Kind: tree.KindDir}
	cases := []struct {
		name    string
		entries []tree.Entry
		c       charge
		want    int64
	}{
		{"tmpfs: a folder takes nothing", []tree.Entry{{Path: ".", Kind: tree.KindDir}, dir}, tmpfsCharge, 0},
		{"tmpfs: empty files take nothing", []tree.Entry{file(0), file(0), file(0)}, tmpfsCharge, 0},
		{"tmpfs: data rounded up to pages", []tree.Entry{dir, file(1), file(4097)}, tmpfsCharge, 4096 + 8192},
		{"tmpfs: a sparse file: its extents", []tree.Entry{{Kind: tree.KindFile, Size: 1 << 30, Extents: []tree.Extent{{Off: 0, Len: 10}, {Off: 1 << 20, Len: 4096}}}}, tmpfsCharge, 8192},
		{"tmpfs: hard links once", []tree.Entry{file(1 << 20), {Kind: tree.KindFile, Size: 1 << 20, HardLink: "a"}, {Kind: tree.KindFile, Size: 1 << 20, HardLink: "a"}}, tmpfsCharge, 1 << 20},
		{"tmpfs: a long symlink takes a page, a short one and a FIFO nothing", []tree.Entry{{Kind: tree.KindSymlink, Link: strings.Repeat("x", 200)}, {Kind: tree.KindSymlink, Link: "x"}, {Kind: tree.KindFIFO}}, tmpfsCharge, 4096},
		{"ext4: a block per folder, empty files none", []tree.Entry{{Path: ".", Kind: tree.KindDir}, dir, file(0), file(1)}, ext4Charge, 4096 + 4096},
		{"elsewhere: a block per path and the data", []tree.Entry{dir, file(1), file(4097), {Kind: tree.KindFIFO}}, otherCharge, 4*4096 + 4096 + 8192},
	}
	for _, c := range cases {
		if got := needOn(c.entries, c.c); got != c.want {
			t.Errorf("%s: need %d, want %d", c.name, got, c.want)
		}
	}
}
