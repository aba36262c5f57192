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
	"time"

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
