package main

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestCommittedIconIsCurrent: assets/appicon.png is what this program draws,
// so the committed PNG can always be regenerated (`go generate ./assets`).
func TestCommittedIconIsCurrent(t *testing.T) {
	got, err := Encode()
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "assets", "appicon.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, committed) {
		t.Errorf("assets/appicon.png is out of date: run go generate ./assets")
	}
	img, err := png.Decode(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b != image.Rect(0, 0, Size, Size) {
		t.Fatalf("bounds %v", b)
	}
	alpha := func(x, y int) uint32 { _, _, _, a := img.At(x, y).RGBA(); return a >> 8 }
	// The macOS grid: transparent margin and corners, an opaque tile.
	for _, p := range [][2]int{{0, 0}, {1023, 1023}, {50, 512}, {512, 50}, {110, 110}, {914, 914}} {
		if a := alpha(p[0], p[1]); a != 0 {
			t.Errorf("alpha at %v = %d, want 0 (outside the tile)", p, a)
		}
	}
	for _, p := range [][2]int{{512, 512}, {150, 512}, {512, 150}, {512, 900}, {250, 250}} {
		if a := alpha(p[0], p[1]); a != 255 {
			t.Errorf("alpha at %v = %d, want 255 (inside the tile)", p, a)
		}
	}
}

// TestSmallerSizes: a Linux icon theme's sizes are the same drawing, each
// pixel the average of the full one's; a size that does not divide it is
// refused.
func TestSmallerSizes(t *testing.T) {
	for _, n := range []int{512, 256, 128} {
		data, err := EncodeAt(n)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds() != image.Rect(0, 0, n, n) {
			t.Fatalf("%d: %v, bounds %v", n, err, img.Bounds())
		}
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("%d: the corner is not transparent", n)
		}
		if _, _, _, a := img.At(n/2, n/2).RGBA(); a>>8 != 255 {
			t.Errorf("%d: the middle is not opaque", n)
		}
	}
	if _, err := EncodeAt(300); err == nil {
		t.Error("a size that does not divide 1024 was drawn")
	}
}
