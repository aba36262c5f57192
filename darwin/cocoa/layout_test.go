package cocoa

import (
	"testing"
	"unsafe"

	"rambar/ramdisk"
)

// NSRect is four CGFloats, origin first: purego copies the Go struct as is.
func TestRectIsNSRect(t *testing.T) {
	var r rect
	if unsafe.Sizeof(r) != 32 || unsafe.Offsetof(r.Y) != 8 || unsafe.Offsetof(r.W) != 16 || unsafe.Offsetof(r.H) != 24 {
		t.Errorf("rect is %d bytes with offsets %d %d %d; NSRect is 32 with 8 16 24",
			unsafe.Sizeof(r), unsafe.Offsetof(r.Y), unsafe.Offsetof(r.W), unsafe.Offsetof(r.H))
	}
}

func inside(in, r rect) bool {
	return r.X >= in.X && r.Y >= in.Y && r.X+r.W <= in.X+in.W && r.Y+r.H <= in.Y+in.H && r.W > 0 && r.H > 0
}

func overlap(a, b rect) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

func TestLayoutForm(t *testing.T) {
	two := []ramdisk.FileSystem{"apfs", "hfs+"}
	for _, c := range []struct {
		name string
		opt  FormOptions
		want []rowKind
	}{
		{"name and size", FormOptions{FileSystems: two[:1]}, []rowKind{rowName, rowSize}},
		{"with file systems", FormOptions{FileSystems: two}, []rowKind{rowName, rowSize, rowFS}},
		{"with contents", FormOptions{FileSystems: two, Contents: true}, []rowKind{rowName, rowSize, rowFS, rowContents, rowFolder}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := layoutForm(c.opt)
			if len(l.rows) != len(c.want) {
				t.Fatalf("%d rows, want %d", len(l.rows), len(c.want))
			}
			var all []rect
			for i, r := range l.rows {
				if r.kind != c.want[i] {
					t.Errorf("row %d is %v, want %v", i, r.kind, c.want[i])
				}
				if rowLabels[r.kind] == "" {
					t.Errorf("row %v has no label", r.kind)
				}
				parts := []rect{r.label, r.control}
				if r.kind == rowFolder {
					parts = append(parts, r.button)
				}
				for _, p := range parts {
					if !inside(l.view, p) {
						t.Errorf("row %v: %+v is outside the view %+v", r.kind, p, l.view)
					}
					all = append(all, p)
				}
				if i > 0 && r.control.Y >= l.rows[i-1].control.Y {
					t.Errorf("row %v is not below row %v", r.kind, l.rows[i-1].kind)
				}
			}
			all = append(all, l.words)
			if !inside(l.view, l.words) {
				t.Errorf("words %+v outside the view", l.words)
			}
			for i := range all {
				for j := i + 1; j < len(all); j++ {
					if overlap(all[i], all[j]) {
						t.Errorf("%+v overlaps %+v", all[i], all[j])
					}
				}
			}
		})
	}
}
