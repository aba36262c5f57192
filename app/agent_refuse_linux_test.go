package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/internal/testuser"
)

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
	asNobody := testuser.Runner(t, "^TestAgentPeerChild$")
	nobody := func() string { return asNobody(envAgentPeer + "=" + p.Path()) }
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
