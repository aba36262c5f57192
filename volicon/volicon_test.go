package volicon

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestWithCustomIcon: the custom-icon bit is set in FinderInfo and every
// other byte is kept.
func TestWithCustomIcon(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want [2]byte // bytes 8 and 9
	}{
		{"none", nil, [2]byte{0x04, 0x00}},
		{"zeros", make([]byte, 32), [2]byte{0x04, 0x00}},
		{"other flags kept", append(append(make([]byte, 8), 0x40, 0x10), make([]byte, 22)...), [2]byte{0x44, 0x10}},
		{"already set", append(append(make([]byte, 8), 0x04, 0x00), make([]byte, 22)...), [2]byte{0x04, 0x00}},
	}
	for _, tt := range tests {
		in := append([]byte(nil), tt.in...)
		if len(in) == 32 {
			in[0], in[31] = 'X', 'Y' // the rest of FinderInfo stays as it was
		}
		got := withCustomIcon(in)
		if len(got) != 32 || got[8] != tt.want[0] || got[9] != tt.want[1] {
			t.Errorf("%s: flags % x, want % x (len %d)", tt.name, got[8:10], tt.want, len(got))
		}
		if len(in) == 32 && (got[0] != 'X' || got[31] != 'Y') {
			t.Errorf("%s: other bytes changed", tt.name)
		}
	}
}

// TestSet: a .png is converted (the icns magic), an .icns is copied as it
// is, and a file that is not what its name says, or is missing, is
// refused by Set and by Check alike, with nothing written.
func TestSet(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for i := range img.Pix {
		img.Pix[i] = 0x80
	}
	img.Set(1, 1, color.RGBA{255, 0, 0, 255})
	var b bytes.Buffer
	png.Encode(&b, img)
	pngPath := filepath.Join(dir, "icon.png")
	os.WriteFile(pngPath, b.Bytes(), 0o600)

	root := t.TempDir()
	notes, err := Set(root, pngPath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, FileName))
	if err != nil || !bytes.HasPrefix(got, []byte("icns")) {
		t.Fatalf("%s: %d bytes, %v", FileName, len(got), err)
	}
	if n := strings.Join(ramdisk.Texts(notes), "; "); runtime.GOOS != "darwin" && !strings.Contains(n, "only macOS's Finder shows it") {
		t.Errorf("notes %q: want the Linux note", n)
	}
	icnsPath := filepath.Join(dir, "icon.icns")
	os.WriteFile(icnsPath, got, 0o600)
	other := t.TempDir()
	if _, err := Set(other, icnsPath); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(filepath.Join(other, FileName)); !bytes.Equal(again, got) {
		t.Errorf(".icns not copied as it is")
	}
	fake := filepath.Join(dir, "fake.icns")
	os.WriteFile(fake, []byte("not an icon"), 0o600)
	badPNG := filepath.Join(dir, "bad.png")
	os.WriteFile(badPNG, []byte("not a png"), 0o600)
	for _, p := range []string{fake, badPNG, filepath.Join(dir, "missing.png")} {
		empty := t.TempDir()
		if _, err := Set(empty, p); err == nil {
			t.Errorf("Set(%s) accepted", p)
		}
		if err := Check(p); err == nil {
			t.Errorf("Check(%s) accepted", p)
		}
		if ents, _ := os.ReadDir(empty); len(ents) != 0 {
			t.Errorf("Set(%s) wrote %v", p, ents)
		}
	}
}

// TestSetFollowsNoLink: a link planted at the icon's name is not followed;
// the file it points to is left as it was.
func TestSetFollowsNoLink(t *testing.T) {
	root, outside := t.TempDir(), filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte("mine"), 0o600)
	if err := os.Symlink(outside, filepath.Join(root, FileName)); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	var b bytes.Buffer
	png.Encode(&b, img)
	p := filepath.Join(t.TempDir(), "i.png")
	os.WriteFile(p, b.Bytes(), 0o600)
	if _, err := Set(root, p); err == nil {
		t.Error("Set wrote through a planted link")
	}
	if got, _ := os.ReadFile(outside); string(got) != "mine" {
		t.Errorf("the link's target was changed: %q", got)
	}
}
