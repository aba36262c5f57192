package localapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/internal/testuser"
)

// A request of 100 MB and one that never ends are refused, each within
// its bound, and the agent goes on serving others meanwhile.
func TestBoundedRequests(t *testing.T) {
	p, _ := serving(t, func(s *Server) { s.wait = time.Second })
	huge := func() error {
		c, err := dialRaw(p)
		if err != nil {
			return err
		}
		defer c.Close()
		go func() {
			big := bytes.Repeat([]byte("x"), 1<<20)
			for range 100 {
				if _, err := c.Write(big); err != nil {
					return
				}
			}
		}()
		return expectRefusal(c, "too large")
	}
	endless := func() error {
		c, err := dialRaw(p)
		if err != nil {
			return err
		}
		defer c.Close()
		c.Write([]byte(`{"version":1,"args":["save",`)) // and nothing more, ever
		start := time.Now()
		err = expectRefusal(c, "did not come whole within 1s")
		if time.Since(start) > 3*time.Second {
			return fmt.Errorf("refused after %v", time.Since(start))
		}
		return err
	}
	for name, f := range map[string]func() error{"100 MB": huge, "endless": endless} {
		done := make(chan error, 1)
		go func() { done <- f() }()
		if out, _, _ := ask(t, p, "list"); out != "list\n" { // served meanwhile
			t.Errorf("%s: while refusing: %q", name, out)
		}
		if err := <-done; err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if out, _, _ := ask(t, p, "list"); out != "list\n" {
			t.Errorf("%s: after: %q", name, out)
		}
	}
}

// dialRaw connects to p and reads the hello.
func dialRaw(p Place) (net.Conn, error) {
	c, err := net.Dial("unix", p.Path())
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil || !strings.Contains(string(buf[:n]), `"hello"`) {
		c.Close()
		return nil, fmt.Errorf("hello: %q %v", buf[:n], err)
	}
	return c, nil
}

// expectRefusal reads c to its end and wants a refusal saying what.
func expectRefusal(c net.Conn, what string) error {
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	b, _ := io.ReadAll(c)
	if !strings.Contains(string(b), `"error":"refused: `) || !strings.Contains(string(b), what) {
		return fmt.Errorf("answer %q, want a refusal saying %q", b, what)
	}
	return nil
}

// envPeer makes the test binary a client that connects as another user.
const envPeer = "LOCALAPI_TEST_PEER"

// TestPeerChild is the other user's client (run by TestOtherUser).
func TestPeerChild(t *testing.T) {
	path := os.Getenv(envPeer)
	if path == "" {
		t.Skip("run by TestOtherUser")
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		fmt.Println("connect:", err)
		return
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	c.Write(encode(Request{Version: Version, Args: []string{"eject", "--all"}}))
	b, _ := io.ReadAll(c)
	fmt.Printf("answer: %s", b)
}

// Another user (uid 65534) cannot reach the socket (its folder is 0700);
// with the folder and socket opened to everyone, the agent still refuses
// it at once, by its uid, running nothing, and goes on serving.
func TestOtherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as uid 65534")
	}
	ran := make(chan string, 8)
	p := Place{Dir: filepath.Join(shortDir(t), "rambar"), Name: "a.sock"}
	s, err := Listen(p, Hello{}, func(ctx context.Context, req Request, stdout, stderr io.Writer) int {
		ran <- strings.Join(req.Args, " ")
		return 0
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Serve(ctx)
	os.Chmod(filepath.Dir(p.Dir), 0o755)
	asNobody := testuser.Runner(t, "^TestPeerChild$")
	other := func() string { return asNobody(envPeer + "=" + p.Path()) }
	if out := other(); !strings.Contains(out, "permission denied") {
		t.Errorf("through the 0700 folder: %s", out)
	}
	os.Chmod(p.Dir, 0o755)
	os.Chmod(p.Path(), 0o666)
	if out := other(); !strings.Contains(out, `refused: uid 65534 is not this agent's user (uid 0)`) {
		t.Errorf("opened to everyone: %s", out)
	}
	select {
	case r := <-ran:
		t.Errorf("ran %q for another user", r)
	default:
	}
	os.Chmod(p.Dir, 0o700)
	out, _, _ := ask(t, p, "list")
	if r := <-ran; r != "list" || out != "" {
		t.Errorf("after: ran %q", r)
	}
}
