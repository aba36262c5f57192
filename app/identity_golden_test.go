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

// TestBenchTargetsOnlyThisRAMBarsDisks: bench with no target measures the
// disks this data folder made, never another RAMBar's (it writes its files
// on them).
func TestBenchTargetsOnlyThisRAMBarsDisks(t *testing.T) {
	root := t.TempDir()
	eng := ramdisktest.NewMem(filepath.Join(root, "mnt"), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	os.MkdirAll(eng.Root, 0o700)
	home, other := filepath.Join(root, "home"), filepath.Join(root, "other")
	for h, name := range map[string]string{home: "Mine", other: "Theirs"} {
		if _, errOut, code := cliRun(t, eng, h, "create", name, "1G"); code != exitOK {
			t.Fatalf("create %s: %s", name, errOut)
		}
	}
	a := &App{NewEngine: func() (ramdisk.Engine, error) { return eng, nil },
		Paths:  ramdisk.Paths{Settings: filepath.Join(home, "settings.plist"), Data: filepath.Join(home, "data")},
		Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }}
	ts, err := a.benchTargets(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tg := range ts {
		if tg.RAM {
			got = append(got, tg.Name)
		}
	}
	if len(got) != 1 || got[0] != "Mine" {
		t.Errorf("bench's RAM disks: %q, want Mine alone", got)
	}
}
