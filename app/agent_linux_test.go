package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/keeper"
)

// TestAgentSIGTERMSaves: the agent saves what was written since the last
// save when it gets SIGTERM (systemd's stop, launchd's at logout), then
// exits 0 and removes its socket.
func TestAgentSIGTERMSaves(t *testing.T) {
	r := newAgentRig(t)
	r.must("create", "Work", "64M", "--keep")
	r.start()
	if _, err := os.Lstat(r.place().Path()); err != nil {
		t.Fatalf("no socket: %v", err)
	}
	if err := os.WriteFile(filepath.Join(r.root, "Work", "late.txt"), []byte("written just before the stop"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := r.contents("Work"); c.Unsaved == nil || !*c.Unsaved || !c.AutosaveActive == (c.SaveEvery > 0) {
		t.Errorf("before the stop: %+v", c)
	}
	r.signal(syscall.SIGTERM)
	if code := r.wait(); code != 0 {
		t.Errorf("exit %d after SIGTERM:\n%s", code, r.log.String())
	}
	if !strings.Contains(r.log.String(), "Saving before quitting") {
		t.Errorf("the agent did not say it saved:\n%s", r.log.String())
	}
	if _, err := os.Lstat(r.place().Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket is left: %v", err)
	}
	if c := r.contents("Work"); c.Unsaved == nil || *c.Unsaved {
		t.Errorf("after the stop, unsaved: %+v", c)
	}
	r.must("eject", "Work", "--no-save")
	r.must("create", "Work", "64M", "--keep")
	if b, err := os.ReadFile(filepath.Join(r.root, "Work", "late.txt")); err != nil || string(b) != "written just before the stop" {
		t.Errorf("restored %q %v", b, err)
	}
	r.must("eject", "Work")
}

// TestAgentFeedSaves: a disk saved continuously is saved by the agent's
// change feed within its interval after a change, info through the agent
// counts the unsaved paths from the feed meanwhile, and a save through the
// agent reads only what the feed saw changed.
func TestAgentFeedSaves(t *testing.T) {
	r := newAgentRig(t)
	r.must("create", "Auto", "64M", "--keep", "--save-every", "auto")
	r.start()
	var before contentsJSON
	for end := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		before = r.contents("Auto")
		if before.UnsavedPaths != nil && before.Feed != nil && before.LastSnapshot != nil {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the agent never followed the disk: %+v\n%s", before, r.log.String())
		}
	}
	if !r.ran("info", "Auto", "--json") {
		t.Errorf("info did not go through the agent:\n%s", r.log.String())
	}
	wrote := time.Now()
	if err := os.WriteFile(filepath.Join(r.root, "Auto", "new.txt"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := r.contents("Auto"); c.UnsavedPaths == nil || *c.UnsavedPaths != 1 || !*c.Unsaved {
		t.Errorf("info right after the change: %+v", c)
	}
	within := keeper.ContinuousQuiet + keeper.ContinuousBusy + 2*time.Second
	for {
		c := r.contents("Auto", "--direct")
		if c.LastSnapshot != nil && *c.LastSnapshot != *before.LastSnapshot && c.Unsaved != nil && !*c.Unsaved {
			t.Logf("saved by the feed %v after the change", time.Since(wrote).Round(time.Millisecond))
			break
		}
		if time.Since(wrote) > within {
			t.Fatalf("not saved within %v of the change: %+v\n%s", within, c, r.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := os.WriteFile(filepath.Join(r.root, "Auto", "more.txt"), []byte("more"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := r.must("save", "Auto")
	if !r.ran("save", "Auto") || !strings.Contains(out, "1 copied") {
		t.Errorf("save through the agent: %s\n%s", out, r.log.String())
	}
}

// TestAgentKilledAndStartedAgain: after kill -9 the socket it leaves is
// nobody's: the CLI works directly without a word; a new agent replaces
// the socket and serves; a second agent beside it exits 0 at once.
func TestAgentKilledAndStartedAgain(t *testing.T) {
	r := newAgentRig(t)
	r.must("create", "Auto", "64M", "--keep", "--save-every", "auto")
	r.start()
	direct, _, _ := r.run("list", "--json", "--direct")
	r.signal(syscall.SIGKILL)
	r.wait()
	if fi, err := os.Lstat(r.place().Path()); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("kill -9 left no socket: %v %v", fi, err)
	}
	out, errOut, code := r.run("list", "--json")
	if code != 0 || errOut != "" || maskTimes(out) != maskTimes(direct) {
		t.Errorf("with a dead agent's socket: exit %d, stderr %q\n%s", code, errOut, out)
	}
	r.start()
	second := exec.Command(r.bin, "agent")
	second.Env = r.env()
	if b, err := second.CombinedOutput(); err != nil || !strings.Contains(string(b), "already running") {
		t.Errorf("a second agent: %v %s", err, b)
	}
	if err := os.WriteFile(filepath.Join(r.root, "Auto", "after.txt"), []byte("after the restart"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = r.must("save", "Auto")
	if !r.ran("save", "Auto") || !strings.Contains(out, "Saved Auto") {
		t.Errorf("save through the new agent: %s\n%s", out, r.log.String())
	}
	r.signal(syscall.SIGTERM)
	if code := r.wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestAgentHung: an agent that does not answer (stopped) is waited for
// RAMBAR_AGENT_TIMEOUT; the CLI says so and does the work itself.
func TestAgentHung(t *testing.T) {
	r := newAgentRig(t)
	r.must("create", "Work", "64M", "--keep")
	r.start()
	want := r.must("snapshots", "Work", "--direct")
	r.signal(syscall.SIGSTOP)
	start := time.Now()
	out, errOut, code := r.runEnv([]string{"RAMBAR_AGENT_TIMEOUT=1s"}, "snapshots", "Work")
	if code != 0 || out != want || !strings.Contains(errOut, fmt.Sprintf("the agent (pid %d) did not answer within 1s; doing the work here", r.agent.Process.Pid)) {
		t.Errorf("with a stopped agent: exit %d\nstdout %q\nstderr %q", code, out, errOut)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
	r.signal(syscall.SIGCONT)
	r.must("eject", "Work")
}

// TestCreateHandsTheDiskToTheAgent: `rambar create --mirror` from a
// terminal while the agent runs hands the loaded disk to the agent (a save
// through it: handToAgent), so the agent follows it at once and the walk
// its feed needs is done before the user's first save, which then reads
// only what changed. Before, the agent followed a CLI's disk only at its
// next look, and the first save after the load walked the whole disk.
func TestCreateHandsTheDiskToTheAgent(t *testing.T) {
	r := newAgentRig(t)
	folder := filepath.Join(t.TempDir(), "site")
	for i := range 20 {
		d := filepath.Join(folder, fmt.Sprintf("d%02d", i))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "f"), []byte("ab"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r.start()
	r.must("create", "Site", "64M", "--mirror", folder)
	if !r.ran("save", "Site", "--json") {
		t.Fatalf("the create did not hand the disk to the agent:\n%s", r.log.String())
	}
	if c := r.contents("Site"); c.Feed == nil || c.UnsavedPaths == nil || *c.UnsavedPaths != 0 {
		t.Errorf("info right after the create: %+v, want the disk followed with nothing unsaved", c)
	}
	if err := os.WriteFile(filepath.Join(r.root, "Site", "d07", "f"), []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c := r.contents("Site"); c.UnsavedPaths == nil || *c.UnsavedPaths != 1 {
		t.Errorf("info after one change: %+v, want 1 unsaved path by the feed", c)
	}
	r.must("save", "Site")
	if got, err := os.ReadFile(filepath.Join(folder, "d07", "f")); err != nil || string(got) != "abc" {
		t.Errorf("the folder holds %q (%v) after the save, want the change", got, err)
	}
}
