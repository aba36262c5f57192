package holders

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"rambar/internal/diskid"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mountTmpfs mounts a small real tmpfs (the tests run as root) and unmounts
// it at the end.
func mountTmpfs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("rambar-holders-test", dir, "tmpfs", 0, "size=8m"); err != nil {
		t.Fatalf("mount tmpfs (the tests run as root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

func start(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// waitForFD waits until the shell has opened fd and exec'd sleep (Start
// returns once sh runs, before its redirection).
func waitForFD(t *testing.T, pid, fd int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
		if _, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd)); err == nil && strings.TrimSpace(string(comm)) == "sleep" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d never opened fd %d", pid, fd)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEveryKindOfHold: a working directory, an open file and a program run
// from the disk (its text mapped) each hold it; a process elsewhere does not.
// OnMount and Find agree, and the list is sorted by PID.
// holdEveryWay starts three processes that hold the disk at mp, each its
// own way: a working directory, an open file and a program run from it
// (its text mapped); it returns their PIDs and names.
func holdEveryWay(t *testing.T, mp string) map[int]string {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mp, "mapsleep"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mp, "held.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	cwd := exec.Command(sleep, "300")
	cwd.Dir = mp
	fd := exec.Command("/bin/sh", "-c", "exec 3<\"$1\"; exec sleep 300", "sh", filepath.Join(mp, "held.txt"))
	fd.Dir = "/"
	mapped := exec.Command(filepath.Join(mp, "mapsleep"), "300")
	mapped.Dir = "/"
	fdPID := start(t, fd)
	out := map[int]string{start(t, cwd): "sleep", fdPID: "sleep", start(t, mapped): "mapsleep"}
	waitForFD(t, fdPID, 3)
	return out
}

func TestEveryKindOfHold(t *testing.T) {
	mp := mountTmpfs(t)
	want := holdEveryWay(t, mp)
	other := exec.Command("sleep", "300")
	other.Dir = "/"
	otherPID := start(t, other)

	hs := OnMount("/proc", mp)
	got := map[int]string{}
	for i, h := range hs {
		got[h.PID] = h.Command
		if i > 0 && hs[i-1].PID >= h.PID {
			t.Errorf("not sorted by PID: %+v", hs)
		}
	}
	for pid, comm := range want {
		if got[pid] != comm {
			t.Errorf("pid %d (%s) not found holding %s: %+v", pid, comm, mp, hs)
		}
	}
	if _, ok := got[otherPID]; ok {
		t.Errorf("pid %d, with nothing on the disk, listed: %+v", otherPID, hs)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(mp, &st); err != nil {
		t.Fatal(err)
	}
	if byDev := Find("/proc", devMajor(uint64(st.Dev)), devMinor(uint64(st.Dev)), ""); fmt.Sprint(byDev) != fmt.Sprint(hs) {
		t.Errorf("Find by device %+v, OnMount %+v", byDev, hs)
	}
	for pid, comm := range want {
		if comm == "mapsleep" && !mapsAny(fmt.Sprintf("/proc/%d/maps", pid), func(f []string) bool { return mapsDev(f, devMajor(uint64(st.Dev)), devMinor(uint64(st.Dev))) }) {
			t.Errorf("maps of pid %d does not show the disk", pid)
		}
	}
}

// TestFolderByPath: a folder that is not a mount point (a disk stood in for
// by a folder) is matched by path: a process working under it holds it, the
// many processes elsewhere on the same file system do not.
func TestFolderByPath(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cwd := exec.Command("/bin/sleep", "300")
	cwd.Dir = sub
	pid := start(t, cwd)
	hs := OnMount("/proc", dir)
	if len(hs) != 1 || hs[0].PID != pid {
		t.Errorf("holders of the folder %s: %+v, want only pid %d", dir, hs, pid)
	}
}

// TestNothingToFind: a folder that is not there, and a /proc that is not
// there, give no holders rather than an error or a guess.
func TestNothingToFind(t *testing.T) {
	if hs := OnMount("/proc", filepath.Join(t.TempDir(), "gone")); hs != nil {
		t.Errorf("missing folder: %+v", hs)
	}
	if hs := OnMount(filepath.Join(t.TempDir(), "noproc"), "/"); hs != nil {
		t.Errorf("missing /proc: %+v", hs)
	}
}

// TestFindTellsFileSystemsApartByID: with the file system's own id, Find
// still finds every kind of hold on it (a working directory, an open file,
// a mapped program), and none when the id is another file system's, as it
// is once a freed device number has been given to the next one.
func TestFindTellsFileSystemsApartByID(t *testing.T) {
	mp := mountTmpfs(t)
	pids := holdEveryWay(t, mp)

	id := diskid.FSID(mp)
	if id == "" || id == diskid.FSID("/proc") {
		t.Fatalf("FSID of a tmpfs %q, of /proc %q: want its own", id, diskid.FSID("/proc"))
	}
	var st syscall.Stat_t
	if err := syscall.Stat(mp, &st); err != nil {
		t.Fatal(err)
	}
	major, minor := devMajor(uint64(st.Dev)), devMinor(uint64(st.Dev))
	for _, tc := range []struct {
		name, fsid string
		want       int
	}{
		{"its own id", id, 3},
		{"no id (a record from before ids)", "", 3},
		{"another file system's id", "0123456789abcdef", 0},
	} {
		hs := Find("/proc", major, minor, tc.fsid)
		if len(hs) != tc.want {
			t.Errorf("%s: %d holders %+v, want %d (pids %v)", tc.name, len(hs), hs, tc.want, pids)
		}
	}
}

// TestMapFile: the map_files name of a maps range drops maps' padding.
func TestMapFile(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"00400000-0040b000", "400000-40b000"},
		{"7f12a4c00000-7f12a4c21000", "7f12a4c00000-7f12a4c21000"},
		{"junk", "junk"},
	} {
		if got := mapFile(tc.in); got != tc.want {
			t.Errorf("mapFile(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
