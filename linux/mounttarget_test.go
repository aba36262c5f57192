//go:build linux

package linux

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// nobody is the other local user of these tests.
const nobody = 65534

// swapLoop is the attacker of TestMountPointSwapRace, run as nobody: it
// swaps the two names in LINUX_SWAP_RACE ("A\nB") with renameat2
// RENAME_EXCHANGE as fast as it can, until it is killed.
func swapLoop(spec string) int {
	a, b, _ := strings.Cut(spec, "\n")
	for {
		unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	}
}

// TestMountPointSwapRace: root mounts a disk for user 65534 at a folder
// inside that user's own folder, while a process of that user swaps the
// folder with a symbolic link to one of root's folders (renameat2
// RENAME_EXCHANGE) as fast as it can: 1,000 creates. Each is mounted on the
// folder that was checked, where it was asked to be, or not at all
// (refused, or undone where it landed); root's folder is never covered.
func TestMountPointSwapRace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test mounts real tmpfs as root against another user: run it as root (CI does)")
	}
	base := t.TempDir()
	os.Chmod(filepath.Dir(base), 0o755)
	os.Chmod(base, 0o755)
	race, roots := filepath.Join(base, "race"), filepath.Join(base, "roots")
	mp, alt := filepath.Join(race, "mp"), filepath.Join(race, "alt")
	for _, d := range []struct {
		path string
		uid  int
		mode os.FileMode
	}{{race, nobody, 0o755}, {mp, nobody, 0o700}, {roots, 0, 0o700}} {
		if err := os.Mkdir(d.path, d.mode); err != nil {
			t.Fatal(err)
		}
		os.Chown(d.path, d.uid, d.uid)
	}
	if err := os.Symlink(roots, alt); err != nil {
		t.Fatal(err)
	}
	os.Lchown(alt, nobody, nobody)
	attacker := filepath.Join(base, "attacker")
	copyExecutable(t, os.Args[0], attacker)
	cmd := exec.Command(attacker, "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINUX_SWAP_RACE="+mp+"\n"+alt)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	e := New(run.System(), WithMountRoot(testRoot(t)), withOwner(nobody, nobody))
	p := plan(t, e, "Race", 16*ramdisk.MiB, ramdisk.TmpFS)
	p.MountPoint, p.Options.MountPoint = mp, mp
	rootDev := devOfPath(t, roots)
	outcomes := map[string]int{}
	for try := 0; try < 1000; try++ {
		v, err := e.Create(ctx, p)
		if d := devOfPath(t, roots); d != rootDev {
			t.Fatalf("try %d: root's folder %s is covered by a mount (%v)", try, roots, err)
		}
		ms, _ := e.mounts()
		if _, ok := mountAt(ms, roots); ok {
			t.Fatalf("try %d: a mount at root's folder %s", try, roots)
		}
		if err != nil {
			outcomes[raceOutcome(err)]++
			continue
		}
		if m, ok := mountAt(ms, mp); !ok || m.Source != "rambar:Race" || v.MountPoint != mp {
			for _, m := range ms {
				if m.Source == "rambar:Race" {
					t.Logf("rambar:Race id %d is at %s", m.ID, m.MountPoint)
				}
			}
			t.Fatalf("try %d: created %+v, but the mount table has %+v at %s", try, v, m, mp)
		}
		outcomes["mounted at the folder"]++
		if err := e.Eject(ctx, v, true); err != nil {
			ms2, _ := e.mounts()
			for _, m := range append(ms, ms2...) {
				if m.Source == "rambar:Race" {
					t.Logf("rambar:Race id %d parent %d at %s", m.ID, m.Parent, m.MountPoint)
				}
			}
			t.Fatalf("try %d: eject: %v", try, err)
		}
	}
	if ms, _ := e.mounts(); len(ms) > 0 {
		for _, m := range ms {
			if strings.HasPrefix(m.MountPoint, base) {
				t.Errorf("left mounted: %s", m.MountPoint)
			}
		}
	}
	t.Logf("1,000 creates against the swapping user: %v", outcomes)
	if outcomes["mounted at the folder"] == 0 {
		t.Error("no create got as far as mounting: the race was not run")
	}
}

// raceOutcome sorts a refused create of TestMountPointSwapRace.
func raceOutcome(err error) string {
	for _, s := range []string{"symbolic link", "moved", "not a folder", "exists"} {
		if strings.Contains(err.Error(), s) || errors.Is(err, ramdisk.ErrExists) && s == "exists" {
			return "refused: " + s
		}
	}
	return "refused: " + err.Error()
}

func devOfPath(t *testing.T, p string) uint64 {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		t.Fatal(err)
	}
	return st.Dev
}

// copyExecutable copies the test binary where another user can run it.
func copyExecutable(t *testing.T, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMountTargetRefusesWhatOthersCanSwap: the engine's own check, through
// descriptors, refuses a mount point in another user's folder, under a
// folder others can write, and one that is a symbolic link; a folder with
// something in it is ErrExists.
func TestMountTargetRefusesWhatOthersCanSwap(t *testing.T) {
	base := t.TempDir()
	mk := func(p string, uid int, mode os.FileMode) string {
		p = filepath.Join(base, p)
		os.Mkdir(p, mode)
		os.Chmod(p, mode)
		os.Chown(p, uid, uid)
		return p
	}
	theirs := mk("theirs", nobody, 0o755)
	mk("theirs/mp", 0, 0o700)
	open := mk("open", 0, 0o777)
	mk("open/mp", 0, 0o700)
	sticky := mk("sticky", 0, 0o777|os.ModeSticky)
	mk("sticky/mp", 0, 0o700)
	full := mk("full", 0, 0o700)
	os.WriteFile(filepath.Join(full, "x"), nil, 0o600)
	os.Symlink(filepath.Join(sticky, "mp"), filepath.Join(base, "link"))
	for _, tt := range []struct{ mp, why string }{
		{filepath.Join(theirs, "mp"), "belongs to another user (uid 65534)"},
		{filepath.Join(open, "mp"), "is writable by others (mode 0777)"},
		{filepath.Join(base, "link"), "is a symbolic link"},
		{full, "not empty"},
		{filepath.Join(sticky, "mp"), ""},
	} {
		f, err := openMountTarget(tt.mp, 0)
		if err == nil {
			f.Close()
		}
		if tt.why == "" && err != nil || tt.why != "" && (err == nil || !strings.Contains(err.Error(), tt.why)) {
			t.Errorf("%s: %v, want %q", tt.mp, err, tt.why)
		}
	}
}

// TestMountTargetClosedToTheUser: a desktop user's mount point under the
// mount root is made by pkexec, root's and mode 0700: the user cannot list
// it, and it is held by O_PATH instead (the test takes the user's file
// system identity on one thread, as pkexec's caller would be).
func TestMountTargetClosedToTheUser(t *testing.T) {
	base := t.TempDir()
	os.Chmod(filepath.Dir(base), 0o755)
	os.Chmod(base, 0o755)
	mp := filepath.Join(base, "mp")
	if err := os.Mkdir(mp, 0o700); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // the thread ends with the goroutine: its fsuid goes with it
		unix.Setfsuid(nobody)
		f, err := openMountTarget(mp, nobody)
		if err == nil {
			var st unix.Stat_t
			if err = unix.Fstat(int(f.Fd()), &st); err == nil && st.Uid != 0 {
				err = fmt.Errorf("opened a folder of uid %d", st.Uid)
			}
			f.Close()
		}
		done <- err
	}()
	if err := <-done; err != nil {
		t.Errorf("the user's view of a root-owned 0700 mount point: %v", err)
	}
}
