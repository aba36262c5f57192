package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/localapi"
	"rambar/ramdisk"
)

// The agent's end of the local API (package localapi): the verbs the CLI
// delegates run here, in the agent's process, through the very Service
// its keeping runs on, so a save reads what the change feed saw changed,
// info counts unsaved paths from the feed, and an eject is the agent's
// own. Each request is the CLI's own command line, run by the CLI's own
// code (App.run) with its output streamed back: output and exit codes are
// those the CLI prints doing the work itself.

// agentState is what an App running inside the agent for a request knows.
type agentState struct {
	// shared is the agent's Service (its followers, its engine); nil in a
	// CLI that runs on its own.
	shared *disks.Service
}

// agentService is the agent's Service while answering a request (nil
// otherwise, and for a restore --compress, whose copy is its own).
func (a *App) agentService() *disks.Service {
	if a.agentState.shared == nil || a.Compress {
		return nil
	}
	return a.agentState.shared
}

// agentKey marks a context as one request's in the agent.
type agentKey struct{}

// agentRequest reports whether ctx is a request's in the agent: its
// commands leave the agent's signals alone (the client's Ctrl-C ends ctx).
func agentRequest(ctx context.Context) bool { return ctx.Value(agentKey{}) != nil }

// serveAPI listens on the data folder's agent socket and answers the
// CLI's requests until ctx ends; wait waits for the requests under way.
// A socket that cannot be made is said, and the CLI then works directly.
func (a *App) serveAPI(ctx context.Context, svc *disks.Service) (wait func()) {
	place, err := localapi.PlaceFor(runtime.GOOS, a.Getenv, a.Paths.Data)
	if err != nil {
		return func() {}
	}
	hello := localapi.Hello{PID: os.Getpid(), Version: version, Data: a.Paths.Data}
	srv, err := localapi.Listen(place, hello, a.answer(svc))
	if err != nil {
		fmt.Fprintf(a.Stderr, "rambar: warning: no local API, the CLI will do its work itself: %v\n", err)
		return func() {}
	}
	srv.Logf = func(format string, args ...any) { fmt.Fprintf(a.Stderr, "rambar: "+format+"\n", args...) }
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ctx); err != nil {
			fmt.Fprintf(a.Stderr, "rambar: %v\n", err)
		}
	}()
	return func() { <-done }
}

// answer runs one request: a delegated verb's command line, in an App of
// its own over the agent's Service, writing to the client.
func (a *App) answer(svc *disks.Service) localapi.Handler {
	return func(ctx context.Context, req localapi.Request, stdout, stderr io.Writer) (code int) {
		say := speech{i18n.For(i18n.Match([]string{req.Lang}))} // the client's language, not the agent's
		c, _, err := resolve(req.Args)
		if err != nil || !delegated(c) {
			fmt.Fprintln(stderr, say.T("rambar: the agent runs %s; run the others without it", strings.Join(delegatedNames(), ", ")))
			return exitUsage
		}
		defer func() {
			a.debugf("agent: ran %q: exit %d", req.Args, code)
		}()
		defer func() {
			if p := recover(); p != nil {
				fmt.Fprintf(a.Stderr, "rambar: agent: panic in %q: %v\n%s", req.Args, p, debug.Stack())
				fmt.Fprintln(stderr, say.T("rambar: the agent failed: %v", p))
				code = exitError
			}
		}()
		r := &App{Stdout: stdout, Stderr: stderr, Stdin: strings.NewReader(""),
			NewEngine: func() (ramdisk.Engine, error) { return svc.Engine, nil },
			Paths:     a.Paths, Getenv: a.Getenv, Now: a.Now, Interactive: req.Interactive, NewKeeper: a.NewKeeper}
		r.agentState.shared = svc
		r.langOnce.Do(func() { r.langP = say.p })
		r.notifyVia = a.logNotice
		return r.run(context.WithValue(ctx, agentKey{}, true), req.Args)
	}
}

// unsavedCount is how many paths changed on v since its last save, as a
// change feed counts them: in the agent its feed's live count, elsewhere
// what the running agent last published (feedCount).
func (a *App) unsavedCount(k *keeper.Keeper, v ramdisk.Volume) (int, bool) {
	if s := a.agentState.shared; s != nil {
		if u := s.Unsaved(v); u.Known {
			return u.Paths, true
		}
	}
	return a.feedCount(k, v.Name)
}
