package disks

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
	"rambar/tree"
)

// mountsUnder lists the mount points under root, from the mount table
// (a name mounted twice is listed twice).
func mountsUnder(t *testing.T, root string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 {
			if p := tree.UnescapeOctal(f[4]); strings.HasPrefix(p, root+"/") {
				out = append(out, p)
			}
		}
	}
	return out
}

// unmountAll takes down whatever is mounted under root, innermost first.
func unmountAll(t *testing.T, root string) {
	ms := mountsUnder(t, root)
	for i := len(ms) - 1; i >= 0; i-- {
		syscall.Unmount(ms[i], syscall.MNT_DETACH)
	}
}

func realRoot(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts real tmpfs: run it as root (CI does)")
	}
	root := filepath.Join(t.TempDir(), "mnt")
	t.Cleanup(func() { unmountAll(t, root) })
	return root
}

// TestTwoCreatesOfOneNameAcrossProcesses starts two processes that create
// the same disk at the same moment, many times: each time one makes it and
// the other is told it exists (the CLI's exit 8), and only one tmpfs is
// ever mounted there.
func TestTwoCreatesOfOneNameAcrossProcesses(t *testing.T) {
	root, data := realRoot(t), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	eng := linux.New(run.System(), linux.WithMountRoot(root))
	for round := 0; round < 8; round++ {
		name := "Race ✓ " + string(rune('A'+round))
		var cmds []*exec.Cmd
		var stdins []interface{ Close() error }
		var errs []*bytes.Buffer
		for i := 0; i < 2; i++ {
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "DISKS_CHILD=create", "DISKS_NAME="+name, "DISKS_ROOT="+root, "DISKS_DATA="+data)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var eb bytes.Buffer
			cmd.Stderr = &eb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, stdins, errs = append(cmds, cmd), append(stdins, in), append(errs, &eb)
		}
		for _, in := range stdins {
			in.Close() // both go at once
		}
		codes := map[int]int{}
		for i, cmd := range cmds {
			cmd.Wait()
			code := cmd.ProcessState.ExitCode()
			codes[code]++
			if code != 0 && code != childExists {
				t.Errorf("round %d: child exited %d: %s", round, code, errs[i])
			}
		}
		if codes[0] != 1 || codes[childExists] != 1 {
			t.Errorf("round %d: exit codes %v, want one 0 and one %d", round, codes, childExists)
		}
		if ms := mountsUnder(t, root); len(ms) != 1 {
			t.Errorf("round %d: mounted under the root: %q, want one disk", round, ms)
		}
		ejectUnder(t, eng, root)
		unmountAll(t, root)
	}
}

// ejectUnder force-ejects the disks mounted under root, the test's own:
// every engine lists a RAMBar disk mounted at a folder of one's choice
// wherever it is, and a user's own disks must never go with a test's.
func ejectUnder(t *testing.T, e *linux.Engine, root string) {
	t.Helper()
	vs, err := e.List(context.Background())
	if err != nil {
		t.Error(err)
		return
	}
	for _, v := range vs {
		if !strings.HasPrefix(v.MountPoint, root+"/") {
			continue
		}
		if err := e.Eject(context.Background(), v, true); err != nil {
			t.Error(err)
		}
	}
}

// TestPinHoldsAndNoticesAnUnmount: while a save holds a disk pinned, a
// plain unmount fails, and a lazy one is noticed at the end of the save.
func TestPinHoldsAndNoticesAnUnmount(t *testing.T) {
	root := realRoot(t)
	eng := linux.New(run.System(), linux.WithMountRoot(root))
	s := &Service{Engine: eng, Paths: ramdiskPaths(t)}
	c, err := s.Create(context.Background(), CreateRequest{Input: ramdiskInput("Pinned", "16M")})
	if err != nil {
		t.Fatal(err)
	}
	v := c.Volume
	p, err := pin(v)
	if err != nil {
		t.Fatal(err)
	}
	defer p.release()
	if err := p.check(v, ""); err != nil {
		t.Fatalf("check of the pinned disk: %v", err)
	}
	if err := syscall.Unmount(v.MountPoint, 0); err == nil {
		t.Fatal("a plain unmount of a pinned disk went through")
	}
	if err := syscall.Unmount(v.MountPoint, syscall.MNT_DETACH); err != nil {
		t.Fatal(err)
	}
	if err := p.check(v, ""); err == nil {
		t.Error("a lazily unmounted disk passed the check")
	}
}

func ramdiskPaths(t *testing.T) ramdisk.Paths {
	d := t.TempDir()
	return ramdisk.Paths{Settings: filepath.Join(d, "settings.plist"), Data: filepath.Join(d, "data")}
}

func ramdiskInput(name, size string) ramdisk.Input { return ramdisk.Input{Name: name, Size: size} }
