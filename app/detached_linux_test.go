//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// holdDisk starts a process whose working folder is on dir and that keeps
// a file there open: the disk is busy until it is killed.
func holdDisk(t *testing.T, dir string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", "exec 3<held.bin; exec sleep 300")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Wait until it holds the file (sh has exec'd sleep with fd 3 open).
	deadline := time.Now().Add(10 * time.Second)
	for {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/3", cmd.Process.Pid)); err == nil && strings.HasSuffix(l, "held.bin") {
			if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid)); strings.TrimSpace(string(b)) == "sleep" {
				return cmd
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the holder never opened held.bin")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCLIEjectForceWhileHeld: a forced eject of a busy disk says it was
// detached lazily, names the processes that keep its memory, and list
// shows it as "ejected, memory held by PID …" (and list --json under
// ejected_but_held) until they are gone; then it is gone from both.
func TestCLIEjectForceWhileHeld(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Busy", "16M"); code != 0 {
		t.Fatalf("create: %d %s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Busy") })
	mp := filepath.Join(c.root, "Busy")
	if err := os.WriteFile(filepath.Join(mp, "held.bin"), make([]byte, 4<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	holder := holdDisk(t, mp)
	pid := holder.Process.Pid
	if out, errOut, code := c.run("eject", "Busy"); code != exitBusy || !strings.Contains(errOut, fmt.Sprintf("sleep (pid %d)", pid)) {
		t.Fatalf("eject of a busy disk: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := c.run("eject", "Busy", "--force")
	want := fmt.Sprintf("Ejected Busy, lazily: it is out of the file tree, but its memory (4 MiB) stays held until these processes exit or close its files: PID %d (sleep)", pid)
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("eject --force: exit %d\n%s%s\nwant %q", code, out, errOut, want)
	}
	if len(c.mounted()) != 0 {
		t.Fatalf("still mounted: %v", c.mounted())
	}
	out, _, _ = c.run("list")
	if !strings.Contains(out, "Busy") || !strings.Contains(out, "(ejected)") || !strings.Contains(out, fmt.Sprintf("ejected, memory held by PID %d (sleep)", pid)) ||
		!strings.Contains(out, "RAM disks hold 4 MiB") {
		t.Errorf("list after the forced eject:\n%s", out)
	}
	out, _, _ = c.run("list", "--json")
	var doc struct {
		Ejected []detachedJSON `json:"ejected_but_held"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Ejected) != 1 || doc.Ejected[0].Name != "Busy" ||
		len(doc.Ejected[0].Holders) != 1 || doc.Ejected[0].Holders[0].PID != pid || doc.Ejected[0].Held != 4<<20 {
		t.Errorf("list --json after the forced eject (%v):\n%s", err, out)
	}
	// Made again while the old one lingers: both are told apart.
	if out, errOut, code := c.run("create", "Busy", "16M"); code != 0 {
		t.Fatalf("create Busy again: %d %s%s", code, out, errOut)
	}
	out, _, _ = c.run("list")
	if strings.Count(out, "\nBusy ") != 2 || !strings.Contains(out, c.root+"/Busy") || !strings.Contains(out, "they hold 20 MiB") {
		t.Errorf("list with the old Busy held and a new one mounted:\n%s", out)
	}
	if out, errOut, code := c.run("eject", "Busy"); code != 0 || !strings.Contains(out, "Ejected Busy\n") {
		t.Errorf("eject of the new Busy: exit %d\n%s%s", code, out, errOut)
	}

	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for {
		out, _, _ = c.run("list")
		if !strings.Contains(out, "(ejected)") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the disk is still shown ejected but held after its holder died:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if ents, _ := os.ReadDir(filepath.Join(c.home, "data", "detached")); len(ents) != 0 {
		t.Errorf("records left after the disk was freed: %v", ents)
	}
}

// TestTrayShowsEjectedButHeld: the menu shows a disk ejected while held as
// a warning naming the processes, and drops it once they are gone.
func TestTrayShowsEjectedButHeld(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the tray end-to-end test mounts tmpfs and must run as root (as CI does)")
	}
	a := startTray(t)
	a.waitMenu("empty menu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("No RAM Disks"); return ok })
	cli := func(args ...string) {
		t.Helper()
		cmd := exec.Command(a.bin, args...)
		cmd.Env = a.env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("rambar %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	cli("create", "Held", "16M")
	mp := filepath.Join(a.root, "Held")
	t.Cleanup(func() { syscall.Unmount(mp, syscall.MNT_DETACH) })
	os.WriteFile(filepath.Join(mp, "held.bin"), []byte("x"), 0o600)
	holder := holdDisk(t, mp)
	cli("eject", "Held", "--force")
	label := fmt.Sprintf("⚠ Held ejected, memory held by PID %d (sleep)", holder.Process.Pid)
	a.waitMenu(label, 20*time.Second, func(n dbusNode) bool { _, ok := n.find(label); return ok })
	holder.Process.Signal(syscall.SIGKILL)
	holder.Wait()
	a.waitMenu("the warning gone", 20*time.Second, func(n dbusNode) bool { _, ok := n.find("⚠ Held"); return !ok })
}
