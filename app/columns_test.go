package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

func TestDisplayWidth(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"Scratch", 7}, {"", 0}, {"ビルド", 6}, {"構築", 4}, {"빌드", 4}, {"Ｂｕｉｌｄ", 10},
		{"Café", 4}, {"Cafe\u0301", 4}, {"🚀 Rocket", 9}, {"Zähler", 6}, {"→", 1},
	} {
		if got := displayWidth(c.s); got != c.want {
			t.Errorf("displayWidth(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestListAlignsWideNames: `list` lines its columns up on screen when a
// name is Japanese, Korean or has an emoji.
func TestListAlignsWideNames(t *testing.T) {
	root := t.TempDir()
	eng := ramdisktest.NewMem(filepath.Join(root, "v"), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	names := []string{"ビルド", "Scratch", "🚀 Rocket", "빌드 캐시"}
	for _, n := range names {
		if _, errOut, code := cliRun(t, eng, root, "create", n, "64M", "--fs", "tmpfs"); code != exitOK {
			t.Fatalf("create %s: %s", n, errOut)
		}
	}
	out, _, _ := cliRun(t, eng, root, "list")
	lines := strings.Split(out, "\n")
	at := func(l, word string) int { return displayWidth(l[:strings.Index(l, word)]) }
	want := at(lines[0], "MOUNT POINT")
	for _, l := range lines[1 : 1+len(names)] {
		if got := at(l, root); got != want {
			t.Errorf("mount point at column %d, want %d:\n%s", got, want, out)
		}
	}
	vs, _ := eng.List(context.Background())
	if len(vs) != len(names) {
		t.Fatal(fmt.Sprint(vs))
	}
}

func TestColumnsLikeTabwriter(t *testing.T) {
	var b strings.Builder
	c := newColumns(&b)
	fmt.Fprint(c, "A\tBB\tlast\nCCC\tD\tx\n")
	c.Flush()
	if want := "A    BB  last\nCCC  D   x\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
