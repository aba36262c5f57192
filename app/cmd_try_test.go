//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// benchTestApp is an App over the in-memory engine, with its output kept.
func benchTestApp(t *testing.T) (*App, *ramdisktest.Mem, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	mem := ramdisktest.NewMem(t.TempDir(), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 12 * ramdisk.GiB})
	var out, errOut bytes.Buffer
	a := &App{Stdout: &out, Stderr: &errOut, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return mem, nil },
		Getenv:    func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] },
		Now:       time.Now}
	return a, mem, &out, &errOut
}

// benchMountTmpfs mounts a real tmpfs for the test (root here and in CI).
func benchMountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ram")
	os.Mkdir(dir, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Fatalf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

func benchEntries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	return n
}

// TestTryInterruptedBySIGINT starts the real rambar binary: `rambar try` on a real
// tmpfs with a command that runs for 30 s, sends the rambar process SIGINT
// mid-run, and checks that it stops the command, removes its copy and exits
// with the cancelled code.
func TestTryInterruptedBySIGINT(t *testing.T) {
	bin := rambarBinary(t)
	ram := benchMountTmpfs(t, "64m")
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "data.txt"), []byte("some work\n"), 0o644)
	pidFile := filepath.Join(t.TempDir(), "pid")
	tmp := t.TempDir()
	// The command records its pid, then sleeps: argv, no user text in it.
	cmd := exec.Command(bin, "try", "--disk", ram, "--", "/bin/sh", "-c", `echo $$ > "$0"; exec sleep 30`, pidFile)
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var pid int
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			pid = atoiOrZero(strings.TrimSpace(string(b)))
			break
		}
	}
	if pid == 0 {
		cmd.Process.Kill()
		<-done
		t.Fatalf("the command never started; stderr:\n%s", stderr.String())
	}
	if copies := benchEntries(t, ram); len(copies) != 1 || !strings.HasPrefix(copies[0], ".rambar-try-") {
		t.Errorf("while running, the RAM disk holds %v, want the copy", copies)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitCancelled {
			t.Errorf("rambar try exited with %v, want exit code %d; stderr:\n%s", err, exitCancelled, stderr.String())
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("rambar try did not stop within 15 s of SIGINT")
	}
	if !strings.Contains(stderr.String(), "cancelled (the RAM disk copy was removed)") {
		t.Errorf("stderr does not say so:\n%s", stderr.String())
	}
	if left := benchEntries(t, ram); len(left) != 0 {
		t.Errorf("left on the RAM disk: %v", left)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the command (pid %d) is still running: %v", pid, err)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

func atoiOrZero(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestTryTemporaryDisk: without --disk, try makes a RAM disk through the
// engine and ejects it afterwards, also when the command fails.
func TestTryTemporaryDisk(t *testing.T) {
	t.Chdir(t.TempDir())
	os.WriteFile("main.txt", []byte("x"), 0o644)
	t.Setenv("TMPDIR", t.TempDir())
	for _, c := range []struct {
		argv []string
		code int
	}{
		{[]string{"true"}, exitOK},
		{[]string{"false"}, exitError},
	} {
		a, mem, out, errOut := benchTestApp(t)
		code := a.Main(append([]string{"try", "--runs", "3", "--"}, c.argv...))
		if code != c.code {
			t.Errorf("try -- %v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.argv, code, c.code, out, errOut)
		}
		if !strings.Contains(errOut.String(), "Made a temporary RAM disk RAMBar-Try-") {
			t.Errorf("try -- %v: did not say it made a disk:\n%s", c.argv, errOut)
		}
		if vs, _ := mem.List(context.Background()); len(vs) != 0 {
			t.Errorf("try -- %v: disks left mounted: %+v", c.argv, vs)
		}
		if c.code == exitOK && !strings.Contains(out.String(), "RAM disk: ") {
			t.Errorf("no result:\n%s", out)
		}
		if c.code != exitOK && !strings.Contains(errOut.String(), "the command failed on the RAM disk (the warm-up run): exit status 1") {
			t.Errorf("failure not reported:\n%s", errOut)
		}
	}
	a, mem, _, errOut := benchTestApp(t)
	mem.FailNext("create", ramdisk.ErrNeedsAdmin)
	if code := a.Main([]string{"try", "--", "true"}); code != exitNeedsAdmin || !strings.Contains(errOut.String(), "--disk") {
		t.Errorf("create refused: exit %d: %s", code, errOut)
	}
}

// TestTryBadInput: clear errors, nothing made.
func TestTryBadInput(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"try", "true"}, exitUsage, "put the command after --"},
		{[]string{"try", "--"}, exitUsage, "no command after --"},
		{[]string{"try", "--runs", "2", "--", "true"}, exitUsage, "--runs must be between 3 and 100"},
		{[]string{"try", "--runs", "x", "--", "true"}, exitUsage, "invalid value"},
		{[]string{"try", "--disk", "Nope", "--", "true"}, exitNotFound, `--disk "Nope"`},
		{[]string{"try", "--disk", "/var/tmp", "--", "true"}, exitUsage, "not on a RAM disk"},
		{[]string{"try", "extra", "--", "true"}, exitUsage, `unexpected "extra"`},
	} {
		a, mem, _, errOut := benchTestApp(t)
		if code := a.Main(c.args); code != c.code || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
		if vs, _ := mem.List(context.Background()); len(vs) != 0 {
			t.Errorf("%v made a disk", c.args)
		}
	}
}
