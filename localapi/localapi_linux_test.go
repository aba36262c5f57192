package localapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// echo answers a request with its arguments on stdout, "progress" on
// stderr and exit code 3; a request "wait" runs until it is cancelled and
// exits 9.
func echo(ctx context.Context, req Request, stdout, stderr io.Writer) int {
	if req.Args[0] == "wait" {
		fmt.Fprintln(stderr, "waiting")
		<-ctx.Done()
		return 9
	}
	fmt.Fprintln(stderr, "progress")
	fmt.Fprintln(stdout, strings.Join(req.Args, " "))
	return 3
}

// serving starts a server at a place under a fresh runtime folder; it
// stops with the test.
func serving(t *testing.T, tweak func(*Server)) (Place, *Server) {
	t.Helper()
	p := Place{Dir: filepath.Join(shortDir(t), "rambar"), Name: "agent-test.sock"}
	return p, serveAt(t, p, tweak)
}

func serveAt(t *testing.T, p Place, tweak func(*Server)) *Server {
	t.Helper()
	s, err := Listen(p, Hello{PID: os.Getpid(), Version: "test"}, echo)
	if err != nil {
		t.Fatal(err)
	}
	if tweak != nil {
		tweak(s)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// shortDir is a folder of this user's with a short path.
func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "la")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// ask runs args at p and returns stdout, stderr and the exit code.
func ask(t *testing.T, p Place, args ...string) (string, string, int) {
	t.Helper()
	c, err := Dial(p, 5*time.Second)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	var out, errb bytes.Buffer
	code, err := c.Run(Request{Args: args}, &out, &errb)
	if err != nil {
		t.Fatalf("Run %q: %v", args, err)
	}
	return out.String(), errb.String(), code
}

func TestRoundTrip(t *testing.T) {
	p, _ := serving(t, nil)
	out, errs, code := ask(t, p, "save", "Work", "--json")
	if out != "save Work --json\n" || errs != "progress\n" || code != 3 {
		t.Errorf("got %q %q %d", out, errs, code)
	}
	for _, c := range []struct {
		path string
		mode os.FileMode
	}{{p.Dir, os.ModeDir | 0o700}, {p.Path(), os.ModeSocket | 0o600}} {
		fi, err := os.Lstat(c.path)
		if err != nil || fi.Mode() != c.mode {
			t.Errorf("%s: %v %v, want %v", c.path, fi.Mode(), err, c.mode)
		}
	}
}

// Output that is not UTF-8 arrives byte for byte.
func TestOutputBytes(t *testing.T) {
	s, err := Listen(Place{Dir: filepath.Join(shortDir(t), "r"), Name: "a.sock"}, Hello{}, func(ctx context.Context, req Request, stdout, stderr io.Writer) int {
		stdout.Write([]byte("caf\xc3"))
		stdout.Write([]byte("\xa9 \xff\n"))
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	out, _, _ := ask(t, s.place, "x")
	if out != "caf\xc3\xa9 \xff\n" {
		t.Errorf("got %q", out)
	}
}

func TestNoAgent(t *testing.T) {
	p := Place{Dir: filepath.Join(shortDir(t), "rambar"), Name: "agent.sock"}
	if _, err := Dial(p, time.Second); !errors.Is(err, ErrNoAgent) {
		t.Errorf("no folder: %v", err)
	}
	os.Mkdir(p.Dir, 0o700)
	if _, err := Dial(p, time.Second); !errors.Is(err, ErrNoAgent) {
		t.Errorf("no socket: %v", err)
	}
	// A socket left by an agent killed with -9: nobody accepts on it.
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: p.Path(), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	if _, err := Dial(p, time.Second); !errors.Is(err, ErrNoAgent) {
		t.Errorf("stale socket: %v", err)
	}
	serveAt(t, p, nil) // replaces it
	if out, _, _ := ask(t, p, "list"); out != "list\n" {
		t.Errorf("after the stale socket: %q", out)
	}
}

// A link planted at the socket's name is never followed: the client
// refuses it, the agent removes the link (not what it points at) and
// binds its own socket.
func TestPlantedLink(t *testing.T) {
	base := shortDir(t)
	p := Place{Dir: filepath.Join(base, "rambar"), Name: "agent.sock"}
	os.Mkdir(p.Dir, 0o700)
	target := filepath.Join(base, "precious")
	os.WriteFile(target, []byte("keep me"), 0o600)
	// Another listener, the attacker's, where the link points.
	evil := filepath.Join(base, "evil.sock")
	ln, err := net.Listen("unix", evil)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, to := range []string{evil, target} {
		os.Remove(p.Path())
		if err := os.Symlink(to, p.Path()); err != nil {
			t.Fatal(err)
		}
		if _, err := Dial(p, time.Second); !errors.Is(err, ErrUnsafe) {
			t.Errorf("link to %s: Dial: %v, want ErrUnsafe", to, err)
		}
	}
	serveAt(t, p, nil)
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep me" {
		t.Errorf("the link's target: %q %v", b, err)
	}
	if fi, err := os.Lstat(p.Path()); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("socket: %v %v", fi, err)
	}
	if out, _, _ := ask(t, p, "list"); out != "list\n" {
		t.Errorf("after the link: %q", out)
	}
}

// The socket's folder must be the user's alone: a link there is refused,
// a folder others may enter is tightened (agent) or refused (client), one
// of another user refused by both.
func TestFolderChecks(t *testing.T) {
	base := shortDir(t)
	real := filepath.Join(base, "real")
	os.Mkdir(real, 0o700)
	linked := Place{Dir: filepath.Join(base, "rambar"), Name: "a.sock"}
	os.Symlink(real, linked.Dir)
	if _, err := Listen(linked, Hello{}, echo); !errors.Is(err, ErrUnsafe) {
		t.Errorf("folder is a link: Listen: %v", err)
	}
	if _, err := Dial(linked, time.Second); !errors.Is(err, ErrUnsafe) {
		t.Errorf("folder is a link: Dial: %v", err)
	}
	open := Place{Dir: filepath.Join(base, "open"), Name: "a.sock"}
	os.Mkdir(open.Dir, 0o777)
	os.Chmod(open.Dir, 0o777)
	if _, err := Dial(open, time.Second); !errors.Is(err, ErrUnsafe) {
		t.Errorf("open folder: Dial: %v", err)
	}
	serveAt(t, open, nil)
	if fi, _ := os.Stat(open.Dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("open folder left %v", fi.Mode())
	}
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	theirs := Place{Dir: filepath.Join(base, "theirs"), Name: "a.sock"}
	os.Mkdir(theirs.Dir, 0o700)
	os.Chown(theirs.Dir, 65534, 65534)
	if _, err := Listen(theirs, Hello{}, echo); !errors.Is(err, ErrUnsafe) {
		t.Errorf("another user's folder: Listen: %v", err)
	}
	if _, err := Dial(theirs, time.Second); !errors.Is(err, ErrUnsafe) {
		t.Errorf("another user's folder: Dial: %v", err)
	}
}

// Cancel (Ctrl-C in the CLI) ends the command, whose exit still comes.
func TestCancel(t *testing.T) {
	p, _ := serving(t, nil)
	c, err := Dial(p, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code, err := c.Run(Request{Args: []string{"wait"}}, io.Discard, &errb)
		if err != nil {
			t.Error(err)
		}
		done <- code
	}()
	time.Sleep(300 * time.Millisecond)
	c.Cancel()
	select {
	case code := <-done:
		if code != 9 {
			t.Errorf("exit %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("not cancelled")
	}
}

// An agent that takes the connection and says nothing is hung: Dial says
// so within its timeout.
func TestHung(t *testing.T) {
	p := Place{Dir: filepath.Join(shortDir(t), "rambar"), Name: "a.sock"}
	os.Mkdir(p.Dir, 0o700)
	ln, err := net.Listen("unix", p.Path()) // never accepts: a stopped agent's backlog
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	start := time.Now()
	_, err = Dial(p, 500*time.Millisecond)
	var hung *HungError
	if !errors.As(err, &hung) || hung.PID != os.Getpid() {
		t.Fatalf("Dial: %v, want a HungError naming this process", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
}
