package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// dialUnix connects to a Unix socket.
func dialUnix(path string) (net.Conn, error) { return net.Dial("unix", path) }

// rawConn is a connection to the agent that speaks no client's rules.
type rawConn struct{ net.Conn }

// answer reads what the agent says until it closes the connection.
func (c *rawConn) answer() string {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, _ := io.ReadAll(bufio.NewReader(c))
	c.Close()
	return string(b)
}

// The figures each run makes of its own: the moment a disk was measured or
// saved, a snapshot's ID (its time), how long a save took, how long ago,
// and the machine's free memory, which moves meanwhile.
var runOwn = []*regexp.Regexp{
	regexp.MustCompile(`("physical_bytes": \d+,\s+"free_bytes": )\d+`),
	regexp.MustCompile(`memory; [0-9.]+ [KMGT]?i?B free`),
	regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`),
	regexp.MustCompile(`\d{8}T\d{6}(\.\d+)?Z`),
	regexp.MustCompile(`"took_seconds": [0-9.e+-]+`),
	regexp.MustCompile(`in \d+(\.\d+)? m?s\b`),
	regexp.MustCompile(`"took_ns": \d+`),
	regexp.MustCompile(`\d\d\d\d-\d\d-\d\d \d\d:\d\d(:\d\d)?`),
	regexp.MustCompile(`\b\d+ (s|sec|min|h) ago|just now`),
}

// maskTimes blanks the figures of runOwn.
func maskTimes(s string) string {
	for _, re := range runOwn {
		s = re.ReplaceAllString(s, "<time>")
	}
	return s
}

// TestDelegatedVerbsSameBothWays: every verb the CLI delegates prints the
// same stdout and stderr and exits with the same code whether the agent
// does the work or the CLI does it itself (--direct), for documents and
// for errors. Verbs that change a disk run twice from the same state
// (prep); what each run makes of its own (times, snapshot IDs) is masked,
// the rest byte for byte.
func TestDelegatedVerbsSameBothWays(t *testing.T) {
	r := newAgentRig(t)
	folder := filepath.Join(t.TempDir(), "site")
	os.MkdirAll(folder, 0o755)
	os.WriteFile(filepath.Join(folder, "index.html"), []byte("<p>hi</p>"), 0o644)
	os.WriteFile(filepath.Join(folder, "from-folder.html"), []byte("change 000"), 0o644)
	r.must("create", "Work", "64M", "--keep")
	os.WriteFile(filepath.Join(r.root, "Work", "notes.txt"), []byte("one"), 0o644)
	r.must("save", "Work", "--direct")
	r.must("create", "Site", "64M", "--mirror", folder)
	r.start()
	n := 0
	change := func(dir, name string) func() {
		return func() {
			n++
			os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("change %03d", n)), 0o644)
		}
	}
	freshPlain := func() {
		r.run("eject", "Plain", "--no-save", "--direct")
		r.run("forget", "Plain", "--yes")
		r.must("create", "Plain", "16M")
		os.WriteFile(filepath.Join(r.root, "Plain", "a.txt"), []byte("plain"), 0o644)
	}
	// A save, the latest snapshot, then a file it lacks: what a forced
	// restore replaces (saving it as a safety snapshot first).
	unsavedDraft := func() {
		change(filepath.Join(r.root, "Work"), "notes.txt")()
		r.must("save", "Work", "--direct")
		change(filepath.Join(r.root, "Work"), "draft.txt")()
	}
	for _, c := range []struct {
		args []string
		prep func()
	}{
		{args: []string{"list", "--json"}},
		{args: []string{"list"}},
		{args: []string{"info", "Work", "--json"}},
		{args: []string{"info", "Work"}},
		{args: []string{"info", r.root + "/Site", "--json"}},
		{args: []string{"info", "Missing", "--json"}},
		{args: []string{"snapshots", "Work", "--json"}},
		{args: []string{"snapshots", "Work"}},
		{args: []string{"snapshots", "Nope"}},
		{args: []string{"save", "Work", "--json"}},
		{args: []string{"save", "Work", "--json"}, prep: change(filepath.Join(r.root, "Work"), "notes.txt")},
		{args: []string{"save", "Work"}, prep: change(filepath.Join(r.root, "Work"), "more.txt")},
		{args: []string{"save", "--all", "--json"}, prep: change(filepath.Join(r.root, "Site"), "page.html")},
		{args: []string{"save", "Missing", "--json"}},
		{args: []string{"restore", "Work", "--force", "--json"}, prep: unsavedDraft},
		{args: []string{"restore", "Work", "--snapshot", "nonsense"}},
		{args: []string{"restore", "Work", "--json"}, prep: unsavedDraft},
		{args: []string{"refresh", "Site", "--json"}, prep: change(folder, "from-folder.html")},
		{args: []string{"refresh", "Work"}},
		{args: []string{"keep", "Plain", "--json"}, prep: freshPlain},
		{args: []string{"keep", "Work"}},
		{args: []string{"eject", "Plain"}, prep: freshPlain},
		{args: []string{"eject", "Missing"}},
		{args: []string{"eject", "Plain", "Missing"}, prep: freshPlain},
	} {
		type result struct {
			out, err string
			code     int
		}
		var got [2]result
		for i, way := range []string{"agent", "direct"} {
			if c.prep != nil {
				c.prep()
			}
			args := c.args
			if way == "direct" {
				args = append(append([]string(nil), args...), "--direct")
			}
			before := strings.Count(r.log.String(), "agent: ran ")
			out, errOut, code := r.run(args...)
			got[i] = result{maskTimes(out), maskTimes(errOut), code}
			// The agent's log comes through a pipe: wait for its line.
			asked := false
			for end := time.Now().Add(2 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				asked = strings.Count(r.log.String(), "agent: ran ") > before
				if asked || time.Now().After(end) || way == "direct" && time.Now().After(end.Add(-1800*time.Millisecond)) {
					break
				}
			}
			if asked != (way == "agent") {
				t.Errorf("rambar %q: the agent ran it: %v", args, asked)
			}
		}
		if got[0] != got[1] {
			t.Errorf("rambar %q: through the agent and directly differ:\nagent  exit %d\n%s%s\ndirect exit %d\n%s%s",
				c.args, got[0].code, got[0].out, got[0].err, got[1].code, got[1].out, got[1].err)
		}
	}
	r.signal(15)
	r.wait()
	r.must("eject", "--all")
}
