package ramdisk

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int64
		noun string
		want string
	}{{0, "file", "0 files"}, {1, "file", "1 file"}, {2, "run", "2 runs"}, {-1, "file", "-1 files"}, {1234, "file", "1234 files"}} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
