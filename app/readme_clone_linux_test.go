//go:build linux

package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// firstCommands are the command lines of the README's first sh block, each
// without its comment.
func firstCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(b), "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok || block == "" {
		t.Fatal("the README has no sh block")
	}
	var out []string
	sc := bufio.NewScanner(strings.NewReader(block))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return out
}

// TestREADMEFirstCommands runs the README's first commands as a newcomer
// would, in a fresh clone of this repository (what is committed: `git
// clone` of the project's address is a clone of this one), with the
// install going to a folder of the test's: make build, the CLI's help and
// version, make install PREFIX=… (the binary, a desktop entry that
// desktop-file-validate accepts and its icon), the installed rambar, and
// make uninstall. `make test` is what runs this. A command the test does
// not know fails it, so the README and the test change together.
func TestREADMEFirstCommands(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Fatalf("not a git checkout (%v): a fresh clone needs one", err)
	}
	work := t.TempDir()
	home := filepath.Join(work, "home")
	os.MkdirAll(home, 0o755)
	prefix := filepath.Join(home, ".local")
	dir := work
	env := append(envWithout("HOME", "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PREFIX", "DESTDIR"), "HOME="+home,
		"GOCACHE="+goEnv(t, "GOCACHE"), "GOMODCACHE="+goEnv(t, "GOMODCACHE"), "GOPATH="+goEnv(t, "GOPATH"))
	run := func(argv ...string) string {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s (in %s): %v\n%s", strings.Join(argv, " "), dir, err, out)
		}
		return string(out)
	}
	installed := []string{"bin/rambar", "share/applications/rambar.desktop", "share/icons/hicolor/256x256/apps/rambar.png"}
	ran := map[string]bool{}
	for _, line := range firstCommands(t) {
		line = strings.ReplaceAll(line, "$HOME", home)
		switch {
		case strings.HasPrefix(line, "git clone https://github.com/rambar/rambar"):
			run("git", "clone", "--quiet", repo, filepath.Join(work, "rambar"))
			if strings.HasSuffix(line, "&& cd rambar") {
				dir = filepath.Join(work, "rambar")
			}
		case line == "make build":
			run("make", "build")
			if _, err := os.Stat(filepath.Join(dir, "bin", "rambar")); err != nil {
				t.Fatalf("make build made no bin/rambar: %v", err)
			}
		case line == "bin/rambar help":
			if out := run("bin/rambar", "help"); !strings.Contains(out, "rambar COMMAND [ARGS]") || !strings.Contains(out, "create NAME SIZE") {
				t.Errorf("bin/rambar help:\n%s", out)
			}
		case line == "bin/rambar version":
			if out := run("bin/rambar", "version"); !strings.HasPrefix(out, "rambar ") || strings.HasPrefix(out, "rambar dev ") {
				t.Errorf("bin/rambar version = %q, want the clone's version", out)
			}
		case line == "make install PREFIX="+prefix:
			out := run("make", "install", "PREFIX="+prefix)
			if !strings.Contains(out, prefix+"/bin is not on your PATH") {
				t.Errorf("make install into a folder not on PATH gives no hint:\n%s", out)
			}
			if strings.Contains(out, "polkit-1/actions/app.rambar.policy") {
				t.Errorf("make install for a PREFIX in the home installed polkit's actions:\n%s", out)
			}
			for _, f := range installed {
				if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
					t.Errorf("make install did not install %s: %v", f, err)
				}
			}
			entry := filepath.Join(prefix, "share/applications/rambar.desktop")
			if b, _ := os.ReadFile(entry); !strings.Contains(string(b), "Exec="+filepath.Join(prefix, "bin/rambar")+"\n") {
				t.Errorf("the desktop entry does not start the installed rambar:\n%s", b)
			}
			if out := run("desktop-file-validate", entry); strings.TrimSpace(out) != "" {
				t.Errorf("desktop-file-validate %s:\n%s", entry, out)
			}
			if out := run(filepath.Join(prefix, "bin/rambar"), "version"); !strings.HasPrefix(out, "rambar ") {
				t.Errorf("the installed rambar says %q", out)
			}
		case line == "make uninstall PREFIX="+prefix:
			run("make", "uninstall", "PREFIX="+prefix)
			for _, f := range installed {
				if _, err := os.Stat(filepath.Join(prefix, f)); err == nil {
					t.Errorf("make uninstall left %s", f)
				}
			}
		case line == "make test":
			// What runs this test.
		case line == "make run":
			// On Linux make run builds bin/rambar and starts it; the app runs
			// until quit (the tray tests run it for real, with a tray host),
			// so here the part a fresh clone can fail at: the build.
			run("make", "build")
			if _, err := os.Stat(filepath.Join(dir, "bin", "rambar")); err != nil {
				t.Fatalf("make run's build made no bin/rambar: %v", err)
			}
		default:
			t.Fatalf("the README's first commands have %q, which this test does not know: teach it", line)
		}
		ran[strings.Fields(line)[0]+" "+strings.Fields(line)[1]] = true
	}
	for _, want := range []string{"git clone", "make run", "make test", "make build", "bin/rambar help", "make install", "make uninstall"} {
		if !ran[want] {
			t.Errorf("the README's first commands no longer %s", want)
		}
	}
}

// goEnv is a `go env` value, so the clone builds from this machine's module
// and build caches (a newcomer's first build downloads them).
func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}
