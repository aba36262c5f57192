//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The real rambar binary, built once for the CLI tests below.
var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func rambarBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "rambar-cli-test-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "rambar")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	if code, ran := inPrivateMounts(); ran {
		os.Exit(code)
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// cli runs the real binary with its own mount root and settings folder.
type cli struct {
	t    *testing.T
	bin  string
	root string
	home string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the CLI tests mount real tmpfs and zram: run them as root (CI does)")
	}
	c := &cli{t: t, bin: rambarBinary(t), root: filepath.Join(t.TempDir(), "mnt"), home: t.TempDir()}
	t.Cleanup(c.scrub)
	return c
}

// run returns stdout, stderr and the exit code.
func (c *cli) run(args ...string) (string, string, int) {
	c.t.Helper()
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(os.Environ(), "RAMBAR_MOUNT_ROOT="+c.root, "RAMBAR_HOME="+c.home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("rambar %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// mounted lists what is mounted under the test's root, from the mount table.
func (c *cli) mounted() []string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		c.t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(unescapeMount(f[4]), c.root+"/") {
			out = append(out, unescapeMount(f[4]))
		}
	}
	return out
}

// scrub unmounts and frees whatever a failed test left under the root.
func (c *cli) scrub() {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	lines := strings.Split(string(b), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		f := strings.Fields(lines[i])
		if len(f) < 10 || !strings.HasPrefix(unescapeMount(f[4]), c.root+"/") {
			continue
		}
		c.t.Errorf("left mounted: %s", f[4])
		syscall.Unmount(unescapeMount(f[4]), syscall.MNT_DETACH)
		for j, x := range f {
			if x == "-" && j+2 < len(f) && strings.HasPrefix(f[j+2], "/dev/zram") {
				n := strings.TrimPrefix(f[j+2], "/dev/zram")
				os.WriteFile("/sys/block/zram"+n+"/reset", []byte("1"), 0)
				os.WriteFile("/sys/class/zram-control/hot_remove", []byte(n), 0)
			}
		}
	}
}

func TestCLICreateListInfoEject(t *testing.T) {
	c := newCLI(t)
	out, errOut, code := c.run("create", "Scratch", "16M")
	if code != 0 || !strings.Contains(out, "Created Scratch at "+c.root+"/Scratch") {
		t.Fatalf("create: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Scratch") })
	if m := c.mounted(); len(m) != 1 || m[0] != c.root+"/Scratch" {
		t.Fatalf("mounted %v", m)
	}
	out, _, code = c.run("list")
	if code != 0 || !strings.Contains(out, "Scratch") || !strings.Contains(out, "tmpfs") || !strings.Contains(out, "16 MiB") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	if err := os.WriteFile(filepath.Join(c.root, "Scratch", "f"), make([]byte, 4<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, code = c.run("list", "--json")
	var doc struct {
		Version int `json:"version"`
		Disks   []struct {
			Name    string `json:"name"`
			FS      string `json:"fs"`
			Size    int64  `json:"size_bytes"`
			Used    int64  `json:"used_bytes"`
			Held    *int64 `json:"held_bytes"`
			Managed bool   `json:"managed"`
		} `json:"disks"`
		Memory *struct {
			Physical int64 `json:"physical_bytes"`
		} `json:"memory"`
		Held int64 `json:"held_bytes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != 0 {
		t.Fatalf("list --json: exit %d, %v\n%s", code, err, out)
	}
	if doc.Version != 1 || len(doc.Disks) != 1 || doc.Disks[0].Name != "Scratch" || doc.Disks[0].FS != "tmpfs" ||
		doc.Disks[0].Size != 16<<20 || doc.Disks[0].Used != 4<<20 || doc.Disks[0].Held == nil || *doc.Disks[0].Held != 4<<20 ||
		!doc.Disks[0].Managed || doc.Memory == nil || doc.Memory.Physical <= 0 || doc.Held != 4<<20 {
		t.Errorf("list --json = %s", out)
	}
	out, _, code = c.run("info", "Scratch")
	if code != 0 || !strings.Contains(out, "Memory held:") || !strings.Contains(out, "4 MiB") || !strings.Contains(out, "rambar") {
		t.Errorf("info: exit %d\n%s", code, out)
	}
	out, _, code = c.run("create", "Scratch", "16M")
	if code != 8 {
		t.Errorf("create of a mounted name: exit %d, want 8\n%s", code, out)
	}

	// Busy: a process with its working directory on the disk.
	sleep := exec.Command("sleep", "300")
	sleep.Dir = filepath.Join(c.root, "Scratch")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	out, errOut, code = c.run("eject", "Scratch")
	if code != 3 || !strings.Contains(errOut, fmt.Sprintf("sleep (pid %d)", sleep.Process.Pid)) || !strings.Contains(errOut, "--force") {
		t.Errorf("busy eject: exit %d, want 3 naming sleep pid %d\nstdout: %sstderr: %s", code, sleep.Process.Pid, out, errOut)
	}
	if m := c.mounted(); len(m) != 1 {
		t.Errorf("a refused eject changed the mounts: %v", m)
	}
	out, errOut, code = c.run("eject", "Scratch", "--force")
	if code != 0 || !strings.Contains(out, "Ejected Scratch") {
		t.Errorf("eject --force: exit %d\n%s%s", code, out, errOut)
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("still mounted after eject --force: %v", m)
	}
	_, errOut, code = c.run("eject", "Scratch")
	if code != 4 {
		t.Errorf("eject of a gone disk: exit %d, want 4\n%s", code, errOut)
	}
}

func TestCLIZRAM(t *testing.T) {
	c := newCLI(t)
	out, errOut, code := c.run("create", "Packed", "32M", "--fs", "zram")
	if code != 0 || !strings.Contains(out, "/dev/zram") {
		t.Fatalf("create --fs zram: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "Packed") })
	out, _, code = c.run("info", "Packed")
	if code != 0 || !strings.Contains(out, "zram (compressed)") || !strings.Contains(out, "Memory held:") {
		t.Errorf("info: exit %d\n%s", code, out)
	}
	// A fresh disk holds ext4's own blocks, not deleted files'.
	if strings.Contains(out, "Pinned by deleted files") {
		t.Errorf("a fresh zram disk shows memory pinned by deleted files:\n%s", out)
	}
	out, errOut, code = c.run("eject", "Packed")
	if code != 0 || len(c.mounted()) != 0 {
		t.Errorf("eject: exit %d, mounted %v\n%s%s", code, c.mounted(), out, errOut)
	}
}

func TestCLIBadInputRefused(t *testing.T) {
	c := newCLI(t)
	tests := []struct {
		args []string
		want string // in stderr
	}{
		{[]string{"create", "Scratch", "0"}, "invalid size"},
		{[]string{"create", "Scratch", "-1G"}, "invalid size"},
		{[]string{"create", "Scratch", "3.5Q"}, "invalid size"},
		{[]string{"create", "a/b", "16M"}, "invalid name"},
		{[]string{"create", "a:b", "16M"}, "invalid name"},
		{[]string{"create", strings.Repeat("n", 300), "16M"}, "invalid name"},
		{[]string{"create", "bell\x07", "16M"}, "control characters"},
		{[]string{"create", "Scratch", "16M", "--fs", "ntfs"}, "unknown file system"},
	}
	for _, tt := range tests {
		out, errOut, code := c.run(tt.args...)
		if code != 2 || !strings.Contains(errOut, tt.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("rambar %q: exit %d, want 2 and one line with %q\nstdout: %sstderr: %s", tt.args, code, tt.want, out, errOut)
		}
	}
	// --hidden has no meaning on Linux: as --spotlight, the disk is made
	// and the plan says the flag changes nothing, never silently.
	out, errOut, code := c.run("create", "Hidden", "16M", "--hidden")
	if code != 0 || !strings.Contains(out, "--hidden has no effect on Linux") {
		t.Errorf("create --hidden on Linux: exit %d, %s%s", code, out, errOut)
	}
	c.run("eject", "Hidden")
	// A file system of macOS is known, but not made here: exit 7, not 2.
	for _, fs := range []string{"apfs", "hfs+"} {
		_, errOut, code := c.run("create", "Scratch", "16M", "--fs", fs)
		if code != exitUnsupported || !strings.Contains(errOut, "is not supported here (Linux): use one of tmpfs, zram") {
			t.Errorf("create --fs %s on Linux: exit %d, %s", fs, code, errOut)
		}
	}
	if m := c.mounted(); len(m) != 0 {
		t.Errorf("bad input mounted %v", m)
	}
	if ents, err := os.ReadDir(c.root); err == nil && len(ents) != 0 {
		t.Errorf("bad input left %v in the mount root", ents)
	}
}
