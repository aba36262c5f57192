//go:build unix

package localapi

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// ErrNoAgent: no agent serves the place (no socket there, or one nobody
// accepts on: left by an agent that is gone).
var ErrNoAgent = errors.New("no agent")

// HungError: the agent took the connection but said nothing for After.
type HungError struct {
	PID   int // the agent's, as the kernel tells it
	After time.Duration
	// Output: some of the command's output had come (it cannot be
	// started again elsewhere without saying it twice).
	Output bool
}

func (e *HungError) Error() string {
	return fmt.Sprintf("the agent (pid %d) did not answer within %v", e.PID, e.After)
}

// RefusedError is the agent's refusal of the connection or the request.
type RefusedError struct {
	Msg  string
	Exit int
}

func (e *RefusedError) Error() string { return "the agent " + e.Msg }

// Conn is a connection to the agent, its hello read.
type Conn struct {
	c       *net.UnixConn
	r       *bufio.Reader
	timeout time.Duration
	// Hello is the agent's first frame; PID its pid as the kernel tells it.
	Hello Hello
	PID   int
}

// Dial connects to the agent at p, waiting at most timeout for its hello.
// Only a socket of this user, reached without following a link, is
// connected to, and only an agent of this user is talked to (its uid asked
// of the kernel): anything else is ErrUnsafe. No socket, or nobody
// listening on it, is ErrNoAgent; an agent that does not say hello in time
// is a *HungError.
func Dial(p Place, timeout time.Duration) (*Conn, error) {
	dir, err := openDir(p.Dir, false)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoAgent
	}
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	found, err := checkSocket(dir, p.Name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNoAgent
	}
	addr, err := sockAddr(dir, p.Name)
	if err != nil {
		return nil, err
	}
	nc, err := net.DialTimeout("unix", addr, timeout)
	if err != nil {
		if refused(err) {
			return nil, ErrNoAgent
		}
		return nil, fmt.Errorf("agent socket %s: %w", p.Path(), err)
	}
	c := &Conn{c: nc.(*net.UnixConn), timeout: timeout}
	c.r = bufio.NewReaderSize(c.c, 64<<10)
	uid, pid, err := peer(c.c)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("agent socket %s: the agent's uid: %w", p.Path(), err)
	}
	if uid != os.Geteuid() {
		c.Close()
		return nil, fmt.Errorf("%w: the process at %s (pid %d) runs as uid %d, not as this user", ErrUnsafe, p.Path(), pid, uid)
	}
	c.PID = pid
	f, err := c.next()
	if err != nil {
		c.Close()
		return nil, err
	}
	switch {
	case f.Error != "":
		c.Close()
		return nil, &RefusedError{Msg: f.Error, Exit: exitOf(f)}
	case f.Hello == nil:
		c.Close()
		return nil, fmt.Errorf("agent socket %s: the agent did not say hello", p.Path())
	}
	c.Hello = *f.Hello
	return c, nil
}

// next reads one frame within the timeout.
func (c *Conn) next() (Frame, error) {
	c.c.SetReadDeadline(time.Now().Add(c.timeout))
	line, err := readLine(c.r, MaxFrame)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return Frame{}, &HungError{PID: c.PID, After: c.timeout}
		}
		return Frame{}, fmt.Errorf("the agent (pid %d) ended the connection: %w", c.PID, err)
	}
	var f Frame
	if err := json.Unmarshal(line, &f); err != nil {
		return Frame{}, fmt.Errorf("the agent (pid %d) answered something else than a frame: %w", c.PID, err)
	}
	return f, nil
}

func exitOf(f Frame) int {
	if f.Exit != nil {
		return *f.Exit
	}
	return 1
}

// Run sends req and writes the command's output to stdout and stderr as
// it comes; it returns the command's exit code. An agent silent for the
// timeout (it sends a frame every Heartbeat while it works) is a
// *HungError, whose Output tells whether anything had been written.
func (c *Conn) Run(req Request, stdout, stderr io.Writer) (int, error) {
	req.Version = Version
	c.c.SetWriteDeadline(time.Now().Add(c.timeout))
	if _, err := c.c.Write(encode(req)); err != nil {
		return 0, fmt.Errorf("the agent (pid %d): send the request: %w", c.PID, err)
	}
	c.c.SetWriteDeadline(time.Time{})
	wrote := false
	for {
		f, err := c.next()
		if err != nil {
			var hung *HungError
			if errors.As(err, &hung) {
				hung.Output = wrote
			}
			return 0, err
		}
		switch {
		case f.Error != "":
			return 0, &RefusedError{Msg: f.Error, Exit: exitOf(f)}
		case f.Exit != nil:
			return *f.Exit, nil
		}
		wrote = wrote || f.Stdout != "" || len(f.StdoutBytes) > 0
		io.WriteString(stdout, f.Stdout)
		stdout.Write(f.StdoutBytes)
		io.WriteString(stderr, f.Stderr)
		stderr.Write(f.StderrBytes)
	}
}

// Cancel asks the agent to stop the command (half-closing this side);
// Run still reads its end and exit code.
func (c *Conn) Cancel() { c.c.CloseWrite() }

// Close ends the connection.
func (c *Conn) Close() error { return c.c.Close() }
