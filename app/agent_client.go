package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"rambar/i18n"
	"rambar/internal/signals"
	"rambar/localapi"
)

// The CLI's end of the local API: the verbs below go through the agent
// (or the menu-bar app) when one serves this data folder, and are done
// here when none does, with the same output and exit codes (--direct does
// them here always). An agent that does not answer within agentTimeout is
// said to hang, and the work is done here.

// delegatedVerbs are the verbs the agent runs for the CLI.
var delegatedVerbs = map[string]bool{
	"save": true, "info": true, "list": true, "snapshots": true,
	"eject": true, "keep": true, "refresh": true, "restore": true,
}

// delegated reports whether c is a verb the agent runs.
func delegated(c *command) bool { return c != nil && c.parent == nil && delegatedVerbs[c.Name] }

// delegatedNames lists the delegated verbs, sorted.
func delegatedNames() []string {
	var out []string
	for n := range delegatedVerbs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// directFlag makes a delegated verb do its work in this process.
var directFlag = flagBool("direct", i18n.N("do the work in this process even when the agent or the menu-bar app runs (it is asked otherwise)"))

// agentTimeout is how long the CLI waits for the agent's hello, and for
// each frame while a command runs (the agent sends one every second);
// RAMBAR_AGENT_TIMEOUT overrides it.
const agentTimeout = 5 * time.Second

// viaAgent runs c with args through the agent that serves this data
// folder, if one does; ok is false when the work is to be done here.
func (a *App) viaAgent(ctx context.Context, c *command, args []string, in *input) (code int, ok bool) {
	if !delegated(c) || *in.Bool("direct") {
		return 0, false
	}
	conn := a.dialAgent()
	if conn == nil {
		return 0, false
	}
	defer conn.Close()
	sent := append(strings.Fields(c.path()), a.absArgs(c, args)...)
	sctx, stop := signal.NotifyContext(ctx, signals.Stop(syscall.SIGPIPE)...)
	defer stop()
	finished := make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-sctx.Done(): // Ctrl-C: the agent stops the command the orderly way, and says how it ended
			conn.Cancel()
		case <-finished:
		}
	}()
	code, err := conn.Run(localapi.Request{Args: sent, Interactive: a.Interactive, Lang: a.lang().Tag.String()}, a.Stdout, a.Stderr)
	if err == nil {
		return code, true
	}
	var hung *localapi.HungError
	if errors.As(err, &hung) && hung.Output {
		fmt.Fprintln(a.Stderr, a.say().T("rambar: %v, and had answered in part; run it again (--direct does the work here)", err))
		return exitError, true
	}
	a.agentMiss(err)
	return 0, false
}

// handToAgent asks the agent that serves this data folder, if one does,
// to save the kept or mirrored disk (name) this process just filled (a
// Mirror load, a kept disk's restore; an empty new disk needs no walk): the
// agent follows it before that save's walk, so the walk is its change
// feed's first and the user's next save (through the agent) reads only
// what changed. Without it that next save would walk the whole disk. Its
// output and any failure are the agent's to log: the disk was made.
func (a *App) handToAgent(name string) {
	conn := a.dialAgent()
	if conn == nil {
		return
	}
	defer conn.Close()
	if code, err := conn.Run(localapi.Request{Args: []string{"save", name, "--json"}}, io.Discard, io.Discard); err != nil || code != 0 {
		a.debugf("the agent did not take %s on (exit %d): %v", name, code, err)
	}
}

// dialAgent connects to the agent of this data folder (nil: none, this
// process is it, or it runs another version).
func (a *App) dialAgent() *localapi.Conn {
	if a.agentState.shared != nil {
		return nil
	}
	place, err := localapi.PlaceFor(runtime.GOOS, a.Getenv, a.Paths.Data)
	if err != nil {
		return nil
	}
	timeout := agentTimeout
	if d, err := time.ParseDuration(a.Getenv("RAMBAR_AGENT_TIMEOUT")); err == nil && d > 0 {
		timeout = d
	}
	conn, err := localapi.Dial(place, timeout)
	if err != nil {
		a.agentMiss(err)
		return nil
	}
	if conn.Hello.Version != version {
		a.debugf("the agent (pid %d) is version %s, this rambar %s: working directly", conn.PID, conn.Hello.Version, version)
		conn.Close()
		return nil
	}
	return conn
}

// agentMiss says why the agent was not asked when the user should know
// (it hangs, refused, or its socket is not safe to use); no agent at all
// is the ordinary case and says nothing.
func (a *App) agentMiss(err error) {
	var hung *localapi.HungError
	var ref *localapi.RefusedError
	switch {
	case errors.Is(err, localapi.ErrNoAgent):
	case errors.As(err, &hung):
		fmt.Fprintln(a.Stderr, a.say().T("rambar: %v; doing the work here", err))
	case errors.As(err, &ref), errors.Is(err, localapi.ErrUnsafe):
		fmt.Fprintln(a.Stderr, a.say().T("rambar: warning: not asking the agent: %v; doing the work here", err))
	default:
		a.debugf("not asking the agent: %v", err)
	}
}

// debugf writes a diagnostic with RAMBAR_DEBUG set.
func (a *App) debugf(format string, args ...any) {
	if a.Getenv("RAMBAR_DEBUG") != "" {
		fmt.Fprintf(a.Stderr, "rambar: "+format+"\n", args...)
	}
}

// absArgs is args with what names a path made absolute, as this process's
// folder resolves it: a mount point given as a relative path (a name has
// no "/"), and a path flag's value (--mirror FOLDER, with ~ expanded). The
// agent runs in a folder of its own.
func (a *App) absArgs(c *command, args []string) []string {
	out := make([]string, 0, len(args))
	abs := func(s string) string {
		if !strings.Contains(s, "/") || filepath.IsAbs(s) {
			return s
		}
		if p, err := filepath.Abs(s); err == nil {
			return p
		}
		return s
	}
	flagPath := func(tok, v string) string {
		if p, err := a.pathArg(tok, v); err == nil && p != "" {
			return p
		}
		return v
	}
	for i := 0; i < len(args); i++ {
		s := args[i]
		if s == "--" {
			out = append(out, s)
			for _, r := range args[i+1:] {
				out = append(out, abs(r))
			}
			break
		}
		if s == "-" || !strings.HasPrefix(s, "-") || isNegativeNumber(s) {
			out = append(out, abs(s))
			continue
		}
		tok, val, hasVal := strings.Cut(s, "=")
		f, known := c.flag(strings.TrimLeft(tok, "-"))
		path := known && f.Kind == stringFlag && pathValue[f.Value]
		switch {
		case hasVal && path:
			out = append(out, tok+"="+flagPath(tok, val))
		case hasVal || !known || f.Kind == boolFlag || i+1 >= len(args):
			out = append(out, s)
		case path:
			out = append(out, s, flagPath(tok, args[i+1]))
			i++
		default:
			out = append(out, s, args[i+1])
			i++
		}
	}
	return out
}

// pathValue are the value names of flags that take a path.
var pathValue = map[string]bool{"FOLDER": true, "DIR": true, "PATH": true, "FILE": true}
