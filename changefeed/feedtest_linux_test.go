//go:build linux

package changefeed

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// openWalked opens a feed on root as o says, closed when the test ends,
// gives it the top and every folder named (walk) and takes its first
// (lost) changes.
func openWalked(t *testing.T, root string, o Options, folders ...string) *Feed {
	t.Helper()
	f, err := OpenWith(root, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	walk(t, f, root, append([]string{"."}, folders...))
	if c := f.Take(); !c.Lost {
		t.Fatalf("a new feed's first changes are not lost: %+v", c)
	}
	return f
}

// settleFolders waits until f has changes in every folder of want (its
// keys), as settle does.
func settleFolders(t *testing.T, f *Feed, want map[string]string) {
	t.Helper()
	settle(t, f, func(c Changes) bool {
		for folder := range want {
			if _, ok := c.Folders[folder]; !ok {
				return false
			}
		}
		return true
	})
}

// checkNamed fails t for every entry of want (a folder and the name in
// it; "" for none) that c does not name.
func checkNamed(t *testing.T, c Changes, want map[string]string) {
	t.Helper()
	for folder, name := range want {
		if _, ok := c.Named[folder][name]; name != "" && !ok {
			t.Errorf("%s: %q not named: %v", folder, name, c.Named[folder])
		}
	}
}

// overflow holds f's reader, as a reader starved of the CPU, while it
// writes in root 100 files more than the kernel queues (the count in the
// /proc/sys file queued), and waits until the feed says it lost changes:
// those changes.
func overflow(t *testing.T, f *Feed, root, queued string) Changes {
	t.Helper()
	b, err := os.ReadFile(queued)
	if err != nil {
		t.Fatal(err)
	}
	limit, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	f.reading.Lock()
	for i := range limit + 100 {
		if err := os.WriteFile(filepath.Join(root, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
			f.reading.Unlock()
			t.Fatal(err)
		}
	}
	f.reading.Unlock()
	return settle(t, f, func(c Changes) bool { return c.Lost })
}
