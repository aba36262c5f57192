//go:build unix

package localapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// Handler runs one request: it writes the command's output to stdout and
// stderr and returns its exit code. ctx ends when the client goes (or
// half-closes: Ctrl-C) and when the agent stops.
type Handler func(ctx context.Context, req Request, stdout, stderr io.Writer) int

// Server is the agent's end: a listening socket and what answers on it.
type Server struct {
	place   Place
	hello   Hello
	handle  Handler
	ln      *net.UnixListener
	dir     *os.File
	ino     uint64
	slots   chan struct{}
	wg      sync.WaitGroup
	refusal func(uid int) string // "" lets uid in
	wait    time.Duration        // RequestWait (tests shorten it)

	// Logf, when set, hears each refused connection and request.
	Logf func(format string, args ...any)
}

// Listen makes the agent's socket at p: the folder made the user's alone
// (0700), whatever is at the socket's name removed without following it
// (a socket left by an agent that was killed, a link planted there), a new
// socket bound and made 0600. The caller holds the single-instance lock,
// so no other agent of the data folder serves there.
func Listen(p Place, hello Hello, h Handler) (*Server, error) {
	if err := os.MkdirAll(filepath.Dir(p.Dir), 0o700); err != nil {
		return nil, fmt.Errorf("agent socket: %w", err)
	}
	dir, err := openDir(p.Dir, true)
	if err != nil {
		return nil, fmt.Errorf("agent socket: %w", err)
	}
	fail := func(err error) (*Server, error) {
		dir.Close()
		return nil, fmt.Errorf("agent socket %s: %w", p.Path(), err)
	}
	if err := unix.Unlinkat(int(dir.Fd()), p.Name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return fail(err)
	}
	addr, err := sockAddr(dir, p.Name)
	if err != nil {
		return fail(err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return fail(err)
	}
	ln.SetUnlinkOnClose(false) // the address names the folder by descriptor: Close unlinks by it
	if err := unix.Fchmodat(int(dir.Fd()), p.Name, 0o600, 0); err != nil {
		ln.Close()
		return fail(err)
	}
	st, _, err := socketStat(dir, p.Name)
	if err != nil {
		ln.Close()
		return fail(err)
	}
	s := &Server{place: p, hello: hello, handle: h, ln: ln, dir: dir, ino: uint64(st.Ino), slots: make(chan struct{}, maxConns), wait: RequestWait}
	me := os.Geteuid()
	s.refusal = func(uid int) string {
		if uid == me {
			return ""
		}
		return fmt.Sprintf("refused: uid %d is not this agent's user (uid %d)", uid, me)
	}
	return s, nil
}

// Serve answers connections until ctx ends, then stops listening, removes
// the socket and waits for the requests under way (their ctx ended too).
func (s *Server) Serve(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		<-ctx.Done()
		s.ln.Close()
	}()
	defer s.close()
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return fmt.Errorf("agent socket: accept: %w", err)
		}
		select {
		case s.slots <- struct{}{}:
		default:
			s.refuse(c, "refused: the agent is serving too many requests; try again")
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() { <-s.slots }()
			s.serve(ctx, c)
		}()
	}
}

// close waits for the requests under way, then removes the socket if it
// is still the one this server bound.
func (s *Server) close() {
	s.ln.Close()
	s.wg.Wait()
	if st, ok, err := socketStat(s.dir, s.place.Name); err == nil && ok && uint64(st.Ino) == s.ino {
		unix.Unlinkat(int(s.dir.Fd()), s.place.Name, 0)
	}
	s.dir.Close()
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

// refuse answers c with an error frame and closes it.
func (s *Server) refuse(c *net.UnixConn, msg string) {
	s.logf("agent: %s", msg)
	c.SetWriteDeadline(time.Now().Add(time.Second))
	code := 1
	c.Write(encode(Frame{Error: msg, Exit: &code}))
	c.Close()
}

// serve answers one connection: the peer's uid checked, hello, one
// request read within its bounds, then the command run with its output
// streamed.
func (s *Server) serve(ctx context.Context, c *net.UnixConn) {
	uid, pid, err := peer(c)
	if err != nil {
		s.refuse(c, "refused: the peer's uid cannot be told: "+err.Error())
		return
	}
	if msg := s.refusal(uid); msg != "" {
		s.refuse(c, fmt.Sprintf("%s (pid %d)", msg, pid))
		return
	}
	defer c.Close()
	w := &frameWriter{c: c}
	if err := w.frame(Frame{Hello: &s.hello}); err != nil {
		return
	}
	c.SetReadDeadline(time.Now().Add(s.wait))
	r := bufio.NewReaderSize(c, 4096)
	line, err := readLine(r, MaxRequest)
	if err != nil {
		msg := "refused: the request did not come whole within " + s.wait.String()
		if errors.Is(err, ErrTooLarge) {
			msg = "refused: the request is too large (" + err.Error() + ")"
		}
		s.refuse(c, msg)
		return
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil || req.Version != Version || len(req.Args) == 0 {
		s.refuse(c, fmt.Sprintf("refused: not a request of version %d", Version))
		return
	}
	c.SetReadDeadline(time.Time{})
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // anything more from the client, or its end, stops the command
		var b [1]byte
		r.Read(b[:])
		cancel()
	}()
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if w.frame(Frame{Alive: true}) != nil {
					cancel()
				}
			}
		}
	}()
	code := s.handle(rctx, req, w.out(false, cancel), w.out(true, cancel))
	close(stop)
	w.frame(Frame{Exit: &code})
}

// frameWriter writes frames to one connection, one at a time.
type frameWriter struct {
	mu sync.Mutex
	c  *net.UnixConn
}

// writeWait bounds one frame's write: a client that stops reading does
// not hold the command for ever.
const writeWait = 30 * time.Second

func (w *frameWriter) frame(f Frame) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.c.SetWriteDeadline(time.Now().Add(writeWait))
	_, err := w.c.Write(encode(f))
	return err
}

// out is the command's stdout or stderr: each write goes out as frames.
// A write that fails (the client is gone) cancels the command.
func (w *frameWriter) out(stderr bool, cancel func()) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		for rest := p; len(rest) > 0; {
			n := min(len(rest), chunk)
			f := outFrame(rest[:n], stderr)
			if err := w.frame(f); err != nil {
				cancel()
				return 0, err
			}
			rest = rest[n:]
		}
		return len(p), nil
	})
}

// outFrame carries b as text, or as bytes when it is not UTF-8 (a name
// that is not, a character cut by the chunk's end).
func outFrame(b []byte, stderr bool) Frame {
	text := utf8.Valid(b)
	switch {
	case stderr && text:
		return Frame{Stderr: string(b)}
	case stderr:
		return Frame{StderrBytes: bytes.Clone(b)}
	case text:
		return Frame{Stdout: string(b)}
	}
	return Frame{StdoutBytes: bytes.Clone(b)}
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
