//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrayFollowsADiskMadeAgain: the running menu-bar app saves a kept
// disk made with --save-every auto as it changes. Ejected and made again
// from the CLI, the disk is followed again within seconds: a change on the
// new disk is saved by the app with no command, as the disk made from that
// save shows (ejected without saving first).
func TestTrayFollowsADiskMadeAgain(t *testing.T) {
	a := startEmptyTray(t)
	last := func() string {
		t.Helper()
		var d diskJSON
		if err := json.Unmarshal([]byte(a.rambar("info", "Live", "--json")), &d); err != nil {
			t.Fatal(err)
		}
		if d.Contents == nil || d.Contents.LastSnapshot == nil {
			return ""
		}
		return *d.Contents.LastSnapshot
	}
	// savedBy waits until the app saves the disk after a write (a snapshot
	// other than before), and says how long it took.
	savedBy := func(what, before string, within time.Duration) time.Duration {
		t.Helper()
		start := time.Now()
		for last() == before {
			if time.Since(start) > within {
				t.Fatalf("%s: not saved by the app within %s", what, within)
			}
			time.Sleep(200 * time.Millisecond)
		}
		return time.Since(start)
	}
	out := a.rambar("create", "Live", "64M", "--keep", "--save-every", "auto")
	t.Cleanup(func() {
		cmd := exec.Command(a.bin, "eject", "Live", "--force", "--no-save")
		cmd.Env = a.env
		cmd.Run()
	})
	if strings.Contains(out, "not running") {
		t.Errorf("create warned that the app is not running while it runs:\n%s", out)
	}
	mp := filepath.Join(a.root, "Live")
	before := last()
	if err := os.WriteFile(filepath.Join(mp, "one"), []byte("first disk"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Logf("the first disk's change saved by the app after %s", savedBy("a change on the first disk", before, 20*time.Second).Round(time.Millisecond))

	a.rambar("eject", "Live")
	a.rambar("create", "Live", "64M", "--keep")
	before = last()
	if err := os.WriteFile(filepath.Join(mp, "two"), []byte("made again"), 0o600); err != nil {
		t.Fatal(err)
	}
	took := savedBy("a change on the disk made again", before, 20*time.Second)
	t.Logf("the change on the disk made again saved by the app after %s", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("the disk made again was saved %s after its change, want seconds", took.Round(time.Millisecond))
	}

	// What the app saved is the disk made again, with its change.
	a.rambar("eject", "Live", "--no-save")
	a.rambar("create", "Live", "64M", "--keep")
	for name, want := range map[string]string{"one": "first disk", "two": "made again"} {
		if b, err := os.ReadFile(filepath.Join(mp, name)); err != nil || string(b) != want {
			t.Errorf("%s restored as %q, %v; want %q", name, b, err, want)
		}
	}
}
