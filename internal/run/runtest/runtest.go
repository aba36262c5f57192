// Package runtest provides fake run.Runners for tests: a Script of expected
// calls with canned answers, and a Func for stateful fakes (a fake Mac that
// keeps its attached disks between calls).
package runtest

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"rambar/internal/run"
)

// Reply is a canned answer.
type Reply struct {
	Stdout string
	Stderr string
	Exit   int
}

// Call is one expected call and its answer.
type Call struct {
	Argv  []string
	Reply Reply
}

// Script answers calls in order and fails the test on any unexpected call, or
// (at Cleanup) on any expected call that never came.
type Script struct {
	t     testing.TB
	mu    sync.Mutex
	calls []Call
	next  int
}

// NewScript returns a Script that checks itself when the test ends.
func NewScript(t testing.TB, calls ...Call) *Script {
	s := &Script{t: t, calls: calls}
	t.Cleanup(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.next < len(s.calls) {
			t.Errorf("runtest: %d expected call(s) never made, first: %q", len(s.calls)-s.next, s.calls[s.next].Argv)
		}
	})
	return s
}

// Run implements run.Runner.
func (s *Script) Run(ctx context.Context, c run.Cmd) (run.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next >= len(s.calls) {
		s.t.Errorf("runtest: unexpected call %q", c.Argv)
		return run.Result{}, &run.Error{Argv: c.Argv, ExitCode: 127, Err: fmt.Errorf("unexpected call")}
	}
	want := s.calls[s.next]
	s.next++
	if strings.Join(want.Argv, "\x00") != strings.Join(c.Argv, "\x00") {
		s.t.Errorf("runtest: call %d: got %q, want %q", s.next, c.Argv, want.Argv)
	}
	return answer(c, want.Reply)
}

// Func is a Runner backed by a function: the shape of a stateful fake.
type Func func(argv []string, stdin string) Reply

// Run implements run.Runner.
func (f Func) Run(ctx context.Context, c run.Cmd) (run.Result, error) {
	in := ""
	if c.Stdin != nil {
		b, _ := io.ReadAll(c.Stdin)
		in = string(b)
	}
	return answer(c, f(c.Argv, in))
}

// CmdFunc is a Runner backed by a function that sees the whole command:
// a fake that needs the standard input as given (an *os.File passed to
// the program as its own fd 0).
type CmdFunc func(c run.Cmd) Reply

// Run implements run.Runner.
func (f CmdFunc) Run(ctx context.Context, c run.Cmd) (run.Result, error) {
	return answer(c, f(c))
}

// answer turns a Reply into what the system runner would have returned.
func answer(c run.Cmd, r Reply) (run.Result, error) {
	res := run.Result{Stdout: []byte(r.Stdout), Stderr: []byte(r.Stderr)}
	if c.Stdout != nil {
		io.WriteString(c.Stdout, r.Stdout)
		res.Stdout = nil
	}
	if r.Exit != 0 {
		return res, &run.Error{Argv: c.Argv, ExitCode: r.Exit, Stdout: []byte(r.Stdout), Stderr: []byte(r.Stderr), Err: fmt.Errorf("exit status %d", r.Exit)}
	}
	return res, nil
}
