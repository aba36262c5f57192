//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeBlocks are the README's sh blocks after the first (the install,
// which TestREADMEFirstCommands runs in a fresh clone), each a list of
// command lines without their comments.
func readmeBlocks(t *testing.T) [][]string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks [][]string
	parts := strings.Split(string(b), "```sh\n")
	for _, p := range parts[1:] {
		body, _, ok := strings.Cut(p, "```")
		if !ok {
			t.Fatal("an sh block of the README is not closed")
		}
		var lines []string
		for _, l := range strings.Split(body, "\n") {
			l, _, _ = strings.Cut(l, "#")
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		blocks = append(blocks, lines)
	}
	if len(blocks) < 2 {
		t.Fatal("the README has no sh blocks past the install")
	}
	return blocks[1:]
}

// readmeDays are the days the README's examples name; the test types the
// day its own snapshots were made instead (each must still be in the
// README, so the list and the README change together).
var readmeDays = []string{"2026-11-29"}

// TestREADMECommandBlocks runs every command block of the README past the
// install, in order, as a newcomer types them, with the rambar built from
// this tree, on a fresh home (so a fresh settings and data folder) and a
// mount root of the test's own (RAMBAR_MOUNT_ROOT, in place of
// /mnt/rambar). The newcomer's own things are made first: ~/.cache, as
// every desktop account has, ~/Sites/site with a page in it, and a project folder with a Makefile whose test passes,
// where the commands run. Every line must exit 0, so a README line that
// fails fails the build; a line that is not a rambar command fails it too
// (teach the test). At the end nothing is left mounted or in the mount
// root: the blocks eject what they make.
func TestREADMECommandBlocks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the README's commands mount real tmpfs: run as root (CI does)")
	}
	bin := rambarBinary(t)
	work := t.TempDir()
	home, root, project := filepath.Join(work, "home"), filepath.Join(work, "mnt"), filepath.Join(work, "project")
	// A desktop account's home has ~/.cache (where Go's build cache goes).
	for _, d := range []string{filepath.Join(home, "Sites", "site"), filepath.Join(home, ".cache"), project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, "Sites", "site", "index.html"), []byte("<p>hello</p>\n"), 0o644)
	os.WriteFile(filepath.Join(project, "Makefile"), []byte("test:\n\t@true\n"), 0o644)
	env := []string{"HOME=" + home, "USER=root", "LOGNAME=root", "LANG=C.UTF-8", "TERM=dumb",
		"PATH=" + filepath.Dir(bin) + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"RAMBAR_MOUNT_ROOT=" + root}
	t.Cleanup(func() { scrubRoot(t, root) })
	today := time.Now().Format("2006-01-02")
	readme, _ := os.ReadFile("../README.md")
	for _, d := range readmeDays {
		if !strings.Contains(string(readme), d) {
			t.Errorf("the README no longer names the day %s: take it out of readmeDays", d)
		}
	}
	for i, block := range readmeBlocks(t) {
		for _, line := range block {
			if !strings.HasPrefix(line, "rambar ") {
				t.Fatalf("block %d has %q, which is not a rambar command: teach this test", i+2, line)
			}
			typed := line
			for _, d := range readmeDays {
				typed = strings.ReplaceAll(typed, d, today)
			}
			cmd := exec.Command("bash", "-c", typed)
			cmd.Dir, cmd.Env = project, env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			start := time.Now()
			err := cmd.Run()
			if err != nil {
				t.Fatalf("README block %d: %s: %v\n%s", i+2, typed, err, out.String())
			}
			t.Logf("%s (%v)\n%s", typed, time.Since(start).Round(time.Millisecond), out.String())
		}
	}
	if ents, err := os.ReadDir(root); err == nil && len(ents) > 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("the README's blocks left %v in the mount root", names)
	}
}

// scrubRoot unmounts whatever a failed run left under root.
func scrubRoot(t *testing.T, root string) {
	c := &cli{t: t, root: root}
	if left := c.mounted(); len(left) > 0 {
		c.scrub()
	}
}
