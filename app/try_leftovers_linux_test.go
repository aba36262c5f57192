package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tryCmd is `rambar try` in a small source folder, with its own TMPDIR.
func (c *cli) tryCmd(tmp string, args ...string) *exec.Cmd {
	src := c.t.TempDir()
	os.WriteFile(filepath.Join(src, "data.txt"), []byte("some work\n"), 0o644)
	cmd := exec.Command(c.bin, append([]string{"try"}, args...)...)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home, "TMPDIR="+tmp)
	return cmd
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// TestTryIntoAClosedPipeCleansUp is `rambar try … | head -n 1`: the reader
// goes away, the next write gets SIGPIPE, and the temporary disk and the
// log are still removed.
func TestTryIntoAClosedPipeCleansUp(t *testing.T) {
	c := newCLI(t)
	tmp := t.TempDir()
	cmd := c.tryCmd(tmp, "--runs", "3", "--", "sleep", "0.2")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	first, _ := bufio.NewReader(r).ReadString('\n')
	r.Close() // head -n 1 exits
	if !strings.HasPrefix(first, "Trying") {
		t.Errorf("first line %q", first)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("try did not end")
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("left mounted: %v", m)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}

// TestTryKilledIsFoundAndCleaned kills a try with SIGKILL while its
// command runs: doctor lists its disk and log, and the next try ejects and
// removes them.
func TestTryKilledIsFoundAndCleaned(t *testing.T) {
	c := newCLI(t)
	tmp := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The command records its pid, then sleeps: argv, no user text in it.
	cmd := c.tryCmd(tmp, "--", "/bin/sh", "-c", `echo $$ > "$0"; exec sleep 30`, pidFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); len(c.mounted()) == 0 || len(entries(t, tmp)) == 0 || !exists(pidFile); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the temporary disk never appeared")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The command it ran (sleep) would hold the disk: stop it too, by its pid.
	time.Sleep(50 * time.Millisecond) // let the shell finish writing its pid
	if b, err := os.ReadFile(pidFile); err == nil {
		if pid := atoiOrZero(strings.TrimSpace(string(b))); pid > 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	doctor := exec.Command(c.bin, "doctor", "--json")
	doctor.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home, "TMPDIR="+tmp)
	out, err := doctor.Output()
	if err != nil {
		t.Fatalf("doctor: %v", err)
	}
	var rep struct {
		Leftovers []struct{ Kind, Name string } `json:"leftovers"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, l := range rep.Leftovers {
		kinds[l.Kind] = true
	}
	if !kinds["try-disk"] || !kinds["try-log"] {
		t.Errorf("doctor lists %+v, want the try's disk and log", rep.Leftovers)
	}
	next := c.tryCmd(tmp, "--runs", "3", "--", "true")
	errOut, err := next.CombinedOutput()
	if err != nil {
		t.Fatalf("the next try: %v\n%s", err, errOut)
	}
	if !strings.Contains(string(errOut), "left by a try that was stopped") {
		t.Errorf("the next try did not say it cleaned up:\n%s", errOut)
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("left mounted: %v", m)
	}
	if left := entries(t, tmp); len(left) != 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}
}
