package keeper

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"rambar/changefeed"
	"rambar/ramdisk"
)

// The 100,000-folder test runs this test binary as a child (as the user
// it names) that keeps a disk continuously; these variables tell it which.
const (
	envBudgetMount = "RAMBAR_BUDGET_CHILD_MOUNT"
	envBudgetData  = "RAMBAR_BUDGET_CHILD_DATA"
)

// hundredK is the tree's shape: hundredTop folders of hundredSub each.
const hundredTop, hundredSub = 100, 1000

// TestContinuousKeepOf100000Folders keeps a tmpfs of 100,100 folders
// continuously (the app's loop: Following.Next, then a save by the feed),
// in a child process, as a normal user and as root. As a normal user the
// feed is inotify and holds at most one eighth of max_user_watches; the
// folders past that are followed by fanotify inode marks, or, with marks
// turned off (a kernel that allows none), read again by the saves. As
// root it is fanotify and holds no inotify watch between saves. Either
// way the process never holds more than the eighth, saves included. Either way a file written in folders all
// over the tree (most past the budget, for the normal user) is saved
// within 10 s, and a walk then finds nothing unsaved.
func TestContinuousKeepOf100000Folders(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/fs/inotify/max_user_watches")
	if err != nil {
		t.Fatal(err)
	}
	maxWatches, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		uid  uint32
		kind string
		// marks: the folders past the watch budget are followed by
		// fanotify inode marks (else by walks: env turns marks off).
		marks bool
		env   []string
	}{
		{"normal user: inotify within the budget, fanotify marks past it", 65534, changefeed.KindInotify, true, nil},
		{"normal user, no marks: inotify within the budget, walks past it", 65534, changefeed.KindInotify, false, []string{changefeed.EnvMarks + "=off"}},
		{"root: fanotify", 0, changefeed.KindFanotify, false, nil},
	}
	bin := sharedBinary(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mnt, data := filepath.Join(sharedDir(t), "Big"), sharedDir(t)
			if err := os.Mkdir(mnt, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := unix.Mount("rambar-test", mnt, "tmpfs", 0, "size=1g,mode=0755"); err != nil {
				t.Fatalf("mount tmpfs (tests run as root): %v", err)
			}
			t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
			for _, d := range []string{mnt, data} {
				if err := os.Chown(d, int(tt.uid), int(tt.uid)); err != nil {
					t.Fatal(err)
				}
			}
			c := startBudgetChild(t, bin, mnt, data, tt.uid, tt.env)
			most, quit := make(chan int, 1), make(chan struct{})
			go func() { // the most watches the child holds at any time, saves included
				n := 0
				defer func() { most <- n }()
				for {
					select {
					case <-quit:
						return
					default:
					}
					if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fdinfo", c.cmd.Process.Pid)); err != nil || len(ents) == 0 {
						return
					}
					n = max(n, watchesOf(t, strconv.Itoa(c.cmd.Process.Pid)))
					time.Sleep(20 * time.Millisecond)
				}
			}()
			ready := c.next(t, "ready", 5*time.Minute)
			t.Logf("first save (a walk of %d folders): %s", hundredTop*(hundredSub+1), ready.end.Sub(ready.start).Round(time.Millisecond))
			st := ready.feed
			held := watchesOf(t, strconv.Itoa(c.cmd.Process.Pid))
			t.Logf("feed %+v; the child holds %d inotify watches between saves (max_user_watches %d)", st, held, maxWatches)
			switch {
			case st.Kind != tt.kind:
				t.Fatalf("followed by %s, want %s (%s)", st.Kind, tt.kind, st.Why)
			case tt.kind == changefeed.KindInotify && (held > maxWatches/8 || st.Watches > maxWatches/8):
				t.Fatalf("inotify feed holds %d watches (process: %d): want at most %d", st.Watches, held, maxWatches/8)
			case tt.kind == changefeed.KindInotify && tt.marks && (st.Marks == 0 || st.Unwatched != 0):
				t.Fatalf("%d folders marked, %d unwatched: want every folder past the budget marked", st.Marks, st.Unwatched)
			case tt.kind == changefeed.KindInotify && !tt.marks && (st.Marks != 0 || st.Unwatched == 0):
				t.Fatalf("%d folders marked, %d unwatched: want none marked and some walked", st.Marks, st.Unwatched)
			case tt.kind == changefeed.KindFanotify && held != 0:
				t.Fatalf("fanotify feed: the child holds %d inotify watches, want 0", held)
			}

			// A file in folders all over the tree, most past the budget.
			written := time.Now()
			for i := 0; i < hundredTop; i += 5 {
				p := filepath.Join(mnt, fmt.Sprintf("p%03d/q%04d/new", i, hundredSub-1-i))
				if err := os.WriteFile(p, []byte("saved?"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for {
				s := c.next(t, "saved", 30*time.Second)
				if s.start.After(written) && !s.unchanged {
					took := s.end.Sub(written)
					t.Logf("the writes were saved %s after they were made (the save took %s); watches held after it: %d",
						took.Round(time.Millisecond), s.end.Sub(s.start).Round(time.Millisecond), watchesOf(t, strconv.Itoa(c.cmd.Process.Pid)))
					if took > 10*time.Second {
						t.Errorf("saved %s after the writes, want within 10 s", took)
					}
					break
				}
			}
			cpu := cpuOf(t, c.cmd.Process.Pid)
			time.Sleep(10 * time.Second)
			t.Logf("the child's CPU over 10 s with the disk idle: %s", (cpuOf(t, c.cmd.Process.Pid) - cpu).Round(time.Millisecond))
			close(quit)
			n := <-most
			c.stop(t)
			// A save's still watch draws on the same budget (tree.StillWatch).
			if n > maxWatches/8 {
				t.Errorf("the child held %d inotify watches at some moment, saves included: want at most %d", n, maxWatches/8)
			} else {
				t.Logf("the most inotify watches the child held at any moment (saves included): %d", n)
			}
			k := NewKeeper(data)
			k.IsMounted = func(string) bool { return true }
			if dirty, err := k.Dirty(ramdisk.Volume{Name: "Big", MountPoint: mnt}); err != nil || dirty {
				t.Fatalf("after the save a walk finds the disk unsaved: %v %v", dirty, err)
			}
		})
	}
}

// TestWatchBudgetChild is the child of TestContinuousKeepOf100000Folders
// (it does nothing in a test run of its own): it keeps the disk at
// envBudgetMount, makes the tree, saves it (a walk) and then saves it as
// the app does while its stdin is open, telling each save on stdout.
func TestWatchBudgetChild(t *testing.T) {
	mnt, data := os.Getenv(envBudgetMount), os.Getenv(envBudgetData)
	if mnt == "" {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	k, _, v := keptDisk(t, data, "Big", mnt)
	hundredThousandFolders(t, mnt)
	fl, err := k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	tell := func(what string, start time.Time, r Result) {
		b, _ := json.Marshal(fl.Feed())
		fmt.Printf("budgetchild %s %d %d %v %s\n", what, start.UnixNano(), time.Now().UnixNano(), r.Unchanged, b)
	}
	start := time.Now()
	r, err := k.Save(ctx, v, SaveOptions{Follow: fl})
	if err != nil {
		t.Fatal(err)
	}
	tell("ready", start, r)
	for fl.Next(ctx) {
		start := time.Now()
		r, err := k.Save(ctx, v, SaveOptions{Follow: fl})
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			t.Fatal(err)
		}
		tell("saved", start, r)
	}
}

// hundredThousandFolders makes hundredTop folders of hundredSub folders
// each under root (mkdirat from each folder's descriptor: seconds).
func hundredThousandFolders(t *testing.T, root string) {
	t.Helper()
	for i := range hundredTop {
		p := fmt.Sprintf("p%03d", i)
		if err := unix.Mkdirat(unix.AT_FDCWD, filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
		fd, err := unix.Open(filepath.Join(root, p), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		for j := range hundredSub {
			if err := unix.Mkdirat(fd, fmt.Sprintf("q%04d", j), 0o755); err != nil {
				unix.Close(fd)
				t.Fatal(err)
			}
		}
		unix.Close(fd)
	}
}

// budgetChild is a running child and the saves it told.
type budgetChild struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan budgetLine
}

// budgetLine is one save the child told.
type budgetLine struct {
	what       string
	start, end time.Time
	unchanged  bool
	feed       changefeed.Status
}

// startBudgetChild runs the test binary bin as uid's child keeping mnt.
func startBudgetChild(t *testing.T, bin, mnt, data string, uid uint32, env []string) *budgetChild {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestWatchBudgetChild$", "-test.count=1", "-test.timeout=15m")
	cmd.Dir = filepath.Dir(bin)
	cmd.Env = append(append(os.Environ(), envBudgetMount+"="+mnt, envBudgetData+"="+data), env...)
	if uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	}
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the child: %v", err)
	}
	c := &budgetChild{cmd: cmd, stdin: stdin, lines: make(chan budgetLine, 1024)}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.SplitN(sc.Text(), " ", 6)
			if len(f) != 6 || f[0] != "budgetchild" {
				fmt.Fprintln(os.Stderr, sc.Text())
				continue
			}
			l := budgetLine{what: f[1], unchanged: f[4] == "true"}
			s, _ := strconv.ParseInt(f[2], 10, 64)
			e, _ := strconv.ParseInt(f[3], 10, 64)
			l.start, l.end = time.Unix(0, s), time.Unix(0, e)
			json.Unmarshal([]byte(f[5]), &l.feed)
			c.lines <- l
		}
	}()
	return c
}

// next is the child's next line telling what, within d.
func (c *budgetChild) next(t *testing.T, what string, d time.Duration) budgetLine {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatalf("the child ended before telling %q", what)
			}
			if l.what == what {
				return l
			}
		case <-deadline:
			t.Fatalf("the child told no %q within %s", what, d)
		}
	}
}

// stop ends the child (its stdin closed) and waits for it.
func (c *budgetChild) stop(t *testing.T) {
	t.Helper()
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the child: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the child did not stop within a minute")
	}
}

// sharedDir is a new folder every user may enter.
func sharedDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "rambar-budget-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}

// sharedBinary is a copy of this test binary every user may run.
func sharedBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(sharedDir(t), "keeper.test")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// watchesOf counts the inotify watches process pid holds
// (/proc/PID/fdinfo's "inotify wd:" lines).
func watchesOf(t *testing.T, pid string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/" + pid + "/fdinfo")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + pid + "/fdinfo/" + e.Name())
		if err != nil {
			continue // closed meanwhile
		}
		n += strings.Count(string(b), "\ninotify wd:")
	}
	return n
}

// cpuOf is the CPU time process pid has used (user and system).
func cpuOf(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// After the command's ")": state is field 3, utime 14 and stime 15.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / 100 // USER_HZ
}
