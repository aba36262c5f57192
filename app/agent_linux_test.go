package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rambar/keeper"
	"rambar/localapi"
	"rambar/ramdisk"
)

// agentRig is the real rambar binary on real tmpfs disks, with a data
// folder, a mount root and a runtime folder of its own, and `rambar agent`
// run as a process beside the CLI.
type agentRig struct {
	t                   *testing.T
	bin, root, home, rt string
	agent               *exec.Cmd
	log                 *lockedBuffer
	exited              chan struct{}
}

// lockedBuffer is a buffer written by a process and read by the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newAgentRig(t *testing.T) *agentRig {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("the agent tests mount real tmpfs: run them as root (CI does)")
	}
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(rt, 0o700)
	r := &agentRig{t: t, bin: rambarBinary(t), root: filepath.Join(t.TempDir(), "mnt"), home: t.TempDir(), rt: rt}
	t.Cleanup(func() {
		r.kill()
		unmountUnder(t, r.root)
		os.RemoveAll(rt)
	})
	return r
}

// env is the environment of every rambar the rig runs.
func (r *agentRig) env(extra ...string) []string {
	return append(append(os.Environ(), "RAMBAR_MOUNT_ROOT="+r.root, "RAMBAR_HOME="+r.home,
		"XDG_RUNTIME_DIR="+r.rt, "RAMBAR_NOTIFY=log", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent"), extra...)
}

// getenv reads r.env, as rambar would.
func (r *agentRig) getenv(k string) string {
	for _, kv := range r.env() {
		if key, v, ok := strings.Cut(kv, "="); ok && key == k {
			return v
		}
	}
	return ""
}

// place is where the agent of the rig's data folder listens.
func (r *agentRig) place() localapi.Place {
	p, err := ramdisk.DefaultPaths("linux", r.getenv)
	if err != nil {
		r.t.Fatal(err)
	}
	pl, err := localapi.PlaceFor("linux", r.getenv, p.Data)
	if err != nil {
		r.t.Fatal(err)
	}
	return pl
}

// run runs the CLI and returns stdout, stderr and the exit code.
func (r *agentRig) run(args ...string) (string, string, int) {
	return r.runEnv(nil, args...)
}

func (r *agentRig) runEnv(extra []string, args ...string) (string, string, int) {
	r.t.Helper()
	cmd := exec.Command(r.bin, args...)
	cmd.Env = r.env(extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("rambar %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// must runs the CLI and fails the test unless it exits 0.
func (r *agentRig) must(args ...string) string {
	r.t.Helper()
	out, errOut, code := r.run(args...)
	if code != 0 {
		r.t.Fatalf("rambar %q: exit %d\n%s%s", args, code, out, errOut)
	}
	return out
}

// start runs `rambar agent` and waits until it serves.
func (r *agentRig) start() {
	r.t.Helper()
	r.log = &lockedBuffer{}
	r.agent = exec.Command(r.bin, "agent")
	r.agent.Env = r.env("RAMBAR_DEBUG=1")
	r.agent.Stdout, r.agent.Stderr = r.log, r.log
	if err := r.agent.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.exited = make(chan struct{})
	go func(cmd *exec.Cmd, done chan struct{}) { cmd.Wait(); close(done) }(r.agent, r.exited)
	r.waitLog("keeps the disks of")
}

// waitLog waits until the agent has said sub.
func (r *agentRig) waitLog(sub string) {
	r.t.Helper()
	for end := time.Now().Add(15 * time.Second); !strings.Contains(r.log.String(), sub); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			r.t.Fatalf("the agent never said %q:\n%s", sub, r.log.String())
		}
	}
}

// signal sends sig to the agent.
func (r *agentRig) signal(sig syscall.Signal) {
	r.t.Helper()
	if err := r.agent.Process.Signal(sig); err != nil {
		r.t.Fatal(err)
	}
}

// wait waits for the agent to exit and returns its exit code.
func (r *agentRig) wait() int {
	r.t.Helper()
	select {
	case <-r.exited:
	case <-time.After(60 * time.Second):
		r.t.Fatalf("the agent did not exit:\n%s", r.log.String())
	}
	return r.agent.ProcessState.ExitCode()
}

// kill ends the agent if it runs (kill -9, at the end of a test).
func (r *agentRig) kill() {
	if r.agent == nil || r.agent.Process == nil {
		return
	}
	select {
	case <-r.exited:
	default:
		r.agent.Process.Signal(syscall.SIGCONT)
		r.agent.Process.Kill()
		<-r.exited
	}
}

// ran reports whether the agent ran args for the CLI (its RAMBAR_DEBUG log).
// The log comes through a pipe: a line written before the CLI's answer
// may arrive after it, so ran waits up to 2 s for it.
func (r *agentRig) ran(args ...string) bool {
	return r.ranTimes(args...) > 0
}

// ranTimes is how many times the agent ran args, waiting up to 2 s for a
// line more than it has when called.
func (r *agentRig) ranTimes(args ...string) int {
	line := fmt.Sprintf("agent: ran %q", args)
	n := strings.Count(r.log.String(), line)
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if m := strings.Count(r.log.String(), line); m > n {
			return m
		}
	}
	return n
}

// contents is `info NAME --json`'s contents, asked with extra flags.
func (r *agentRig) contents(name string, flags ...string) contentsJSON {
	r.t.Helper()
	var d struct {
		Contents *contentsJSON `json:"contents"`
	}
	out := r.must(append([]string{"info", name, "--json"}, flags...)...)
	if err := json.Unmarshal([]byte(out), &d); err != nil || d.Contents == nil {
		r.t.Fatalf("info %s: %v\n%s", name, err, out)
	}
	return *d.Contents
}

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

// envAgentPeer makes the test binary a client of the agent at that path,
// run as another user by TestAgentRefusesAndServes.
const envAgentPeer = "RAMBAR_TEST_AGENT_PEER"

// TestAgentPeerChild connects as another user and prints the answer.
func TestAgentPeerChild(t *testing.T) {
	path := os.Getenv(envAgentPeer)
	if path == "" {
		t.Skip("run by TestAgentRefusesAndServes")
	}
	c, err := dialUnix(path)
	if err != nil {
		fmt.Println("connect:", err)
		return
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte(`{"version":1,"args":["eject","--all","--no-save"]}` + "\n"))
	b := make([]byte, 4096)
	n, _ := c.Read(b)
	fmt.Printf("answer: %s\n", b[:n])
}

// TestAgentRefusesAndServes: a link planted at the socket's path is
// replaced, not followed; another user (uid 65534), a request of 100 MB and
// one that never ends are each refused, and the agent serves the CLI
// after each.
func TestAgentRefusesAndServes(t *testing.T) {
	r := newAgentRig(t)
	r.must("create", "Work", "64M", "--keep")
	p := r.place()
	os.MkdirAll(p.Dir, 0o700)
	precious := filepath.Join(r.rt, "precious")
	os.WriteFile(precious, []byte("keep me"), 0o600)
	if err := os.Symlink(precious, p.Path()); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := r.run("list")
	if code != 0 || !strings.Contains(errOut, "not a socket") || !strings.Contains(out, "Work") {
		t.Errorf("with a link at the socket's path: exit %d, stderr %q", code, errOut)
	}
	r.start()
	if b, _ := os.ReadFile(precious); string(b) != "keep me" {
		t.Errorf("the link's target became %q", b)
	}
	if fi, err := os.Lstat(p.Path()); err != nil || fi.Mode()&os.ModeSocket == 0 || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket %v %v", fi, err)
	}
	served := func(after string) {
		t.Helper()
		before := strings.Count(r.log.String(), `agent: ran ["list" "--json"]`)
		_, errOut, code := r.run("list", "--json")
		if code != 0 || errOut != "" || r.ranTimes("list", "--json") <= before {
			t.Errorf("after %s: list through the agent: exit %d %q\n%s", after, code, errOut, r.log.String())
		}
	}
	served("the link")

	// Another user: the folder keeps it out; opened to it, the agent
	// refuses it by its uid and does nothing.
	bin := copyForNobody(t)
	nobody := func() string {
		cmd := exec.Command(bin, "-test.run=^TestAgentPeerChild$")
		cmd.Env = append(os.Environ(), envAgentPeer+"="+p.Path())
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if out := nobody(); !strings.Contains(out, "permission denied") {
		t.Errorf("uid 65534 through the 0700 folders: %s", out)
	}
	os.Chmod(r.rt, 0o755)
	os.Chmod(p.Dir, 0o755)
	os.Chmod(p.Path(), 0o666)
	if out := nobody(); !strings.Contains(out, "refused: uid 65534 is not this agent's user (uid 0)") {
		t.Errorf("uid 65534 with the socket opened to it: %s", out)
	}
	os.Chmod(p.Dir, 0o700)
	os.Chmod(r.rt, 0o700)
	if strings.Contains(r.log.String(), `agent: ran ["eject"`) || len(r.mountedDisks()) != 1 {
		t.Errorf("another user's request ran:\n%s", r.log.String())
	}
	served("uid 65534")

	raw := func() *rawConn {
		c, err := dialUnix(p.Path())
		if err != nil {
			t.Fatal(err)
		}
		return &rawConn{c}
	}
	c := raw()
	go func() {
		big := bytes.Repeat([]byte("x"), 1<<20)
		for range 100 {
			if _, err := c.Write(big); err != nil {
				return
			}
		}
	}()
	if a := c.answer(); !strings.Contains(a, "refused: the request is too large") {
		t.Errorf("100 MB request: %q", a)
	}
	served("a request of 100 MB")
	c = raw()
	c.Write([]byte(`{"version":1,"args":["eject",`))
	start := time.Now()
	done := make(chan string, 1)
	go func() { done <- c.answer() }()
	served("while a request never ends")
	if a := <-done; !strings.Contains(a, "refused: the request did not come whole within 5s") {
		t.Errorf("endless request: %q", a)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("refused after %v", d)
	}
	served("a request that never ended")
	r.signal(syscall.SIGTERM)
	r.wait()
	r.must("eject", "Work")
}

// mountedDisks lists the disks mounted under the rig's root.
func (r *agentRig) mountedDisks() []string {
	b, _ := os.ReadFile("/proc/self/mountinfo")
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 && strings.HasPrefix(unescapeMount(f[4]), r.root+"/") {
			out = append(out, f[4])
		}
	}
	return out
}

// copyForNobody copies this test binary where uid 65534 may run it.
func copyForNobody(t *testing.T) string {
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "app.test")
	if err := os.WriteFile(p, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
