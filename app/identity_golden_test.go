package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// snapshotID is a snapshot's ID (its time): volatile in goldens.
var snapshotID = regexp.MustCompile(`\b\d{8}T\d{6}(\.\d+)?Z\b`)

// TestIdentityGolden: the words of a RAMBar with another data folder
// meeting a disk it did not make (listed with a note, eject refused, eject
// --all leaving it),
// a try-shaped name, and a kept name made again with its settings.
func TestIdentityGolden(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	eng := ramdisktest.NewMem("mnt", ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	os.MkdirAll("mnt", 0o700)
	home, other := filepath.Join(root, "home"), filepath.Join(root, "other")
	steps := []struct {
		golden string
		home   string
		args   []string
		code   int
	}{
		{"", home, []string{"create", "Work", "1G", "--keep", "--snapshots", "8", "--save-every", "30s"}, exitOK},
		{"list-another-data-folder", other, []string{"list"}, exitOK},
		{"eject-another-data-folder", other, []string{"eject", "Work"}, exitRefused},
		{"eject-all-another-data-folder", other, []string{"eject", "--all"}, exitOK},
		{"", home, []string{"eject", "Work"}, exitOK},
		{"create-kept-settings", home, []string{"create", "Work", "1G", "--keep"}, exitOK},
		{"create-try-name", home, []string{"create", "RAMBar Try 42", "1G"}, exitUsage},
	}
	for _, s := range steps {
		out, errOut, code := cliRun(t, eng, s.home, s.args...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", strings.Join(s.args, " "), code, s.code, errOut)
		}
		if s.golden != "" {
			got := snapshotID.ReplaceAllLiteralString("$ rambar "+strings.Join(s.args, " ")+"\n"+out+errOut, "$SNAPSHOT")
			golden(t, s.golden, got, root)
		}
	}
}
