//go:build darwin

package volicon

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestCustomIconFlagOnMac: on a real Mac (here it only compiles), the
// folder's FinderInfo gets kHasCustomIcon and keeps its other bytes.
func TestCustomIconFlagOnMac(t *testing.T) {
	dir := t.TempDir()
	old := make([]byte, 32)
	old[0], old[8] = 'X', 0x40
	if err := unix.Setxattr(dir, finderInfoXattr, old, 0); err != nil {
		t.Fatal(err)
	}
	icon := filepath.Join(t.TempDir(), "i.icns")
	os.WriteFile(icon, []byte("icns\x00\x00\x00\x08"), 0o600)
	if _, err := Set(dir, icon); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 32)
	if n, err := unix.Getxattr(dir, finderInfoXattr, got); err != nil || n != 32 || got[0] != 'X' || got[8] != 0x44 || got[9] != 0 {
		t.Errorf("FinderInfo % x (%d, %v)", got, n, err)
	}
}
