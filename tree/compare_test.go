package tree

import "testing"

// TestCompare: the one identity comparison, each option leaving out the
// fields it names and nothing else.
func TestCompare(t *testing.T) {
	base := Ident{Ino: 7, CTime: 10, MTime: 20, Size: 30, Mode: 0o644}
	moved := func(f func(*Ident)) Ident { x := base; f(&x); return x }
	for _, c := range []struct {
		name string
		cmp  Compare
		b    Ident
		want bool
	}{
		{"same", Compare{}, base, true},
		{"ctime", Compare{}, moved(func(x *Ident) { x.CTime++ }), false},
		{"ctime left out", Compare{NoCTime: true}, moved(func(x *Ident) { x.CTime++ }), true},
		{"mtime with ctime left out", Compare{NoCTime: true}, moved(func(x *Ident) { x.MTime++ }), false},
		{"top folder's times and size", Compare{TopFolder: true}, moved(func(x *Ident) { x.MTime++; x.CTime++; x.Size++ }), true},
		{"top folder's inode", Compare{TopFolder: true}, moved(func(x *Ident) { x.Ino++ }), false},
		{"mode", Compare{NoCTime: true, TopFolder: true}, moved(func(x *Ident) { x.Mode = 0o600 }), false},
	} {
		if got := c.cmp.Same(base, c.b); got != c.want {
			t.Errorf("%s: Same = %v, want %v", c.name, got, c.want)
		}
	}
	if !SameIdent(".", base, moved(func(x *Ident) { x.MTime++ })) || SameIdent("a", base, moved(func(x *Ident) { x.MTime++ })) {
		t.Error("SameIdent does not leave out the top folder's times, or only there")
	}
}
