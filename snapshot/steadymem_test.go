package snapshot

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMemCopyReadsWhole: a copy in memory holds the file's bytes, whatever
// room it had before (none, less than the file: it grows, from a slice to
// a mapping of its own, or more), and gives its memory back.
func TestMemCopyReadsWhole(t *testing.T) {
	for _, c := range []struct {
		name       string
		size, room int
	}{
		{"empty", 0, 0},
		{"small, no room", 100, 0},
		{"small, room to spare", 100, 4096},
		{"at the slice limit", memBig, 0},
		{"past the slice limit", memBig + 1, 0},
		{"larger than its room: grows", 3 << 20, memBig + 1},
		{"a mapping reused", 1 << 20, 2 << 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := make([]byte, c.size)
			rand.New(rand.NewSource(int64(c.size))).Read(want)
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, want, 0o600); err != nil {
				t.Fatal(err)
			}
			fd, err := unix.Open(p, unix.O_RDONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer unix.Close(fd)
			m := &memCopy{}
			if err := m.grow(c.room); err != nil {
				t.Fatal(err)
			}
			if err := m.readAll(fd); err != nil {
				t.Fatal(err)
			}
			if m.n != c.size || !bytes.Equal(m.buf[:m.n], want) {
				t.Fatalf("read %d bytes (equal: %v), want the file's %d", m.n, bytes.Equal(m.buf[:m.n], want), c.size)
			}
			if big := cap(m.buf) > memBig; big != m.mapped {
				t.Errorf("%d bytes held, mapped %v", cap(m.buf), m.mapped)
			}
			m.release()
			if m.buf != nil || m.mapped {
				t.Errorf("released, still holds %d bytes", cap(m.buf))
			}
		})
	}
}
