package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"rambar/i18n"
	"rambar/settingsfile"

	"golang.org/x/sys/unix"

	"rambar/keeper"
	"rambar/ramdisk"
	upd "rambar/update"
)

// Exit codes. They are part of the CLI's contract (README, "Exit codes").
const (
	exitOK          = 0
	exitError       = 1 // anything not below
	exitUsage       = 2 // bad arguments, names, sizes, file systems
	exitBusy        = 3 // the disk is in use
	exitNotFound    = 4 // no such disk (never made or already gone)
	exitNeedsAdmin  = 5 // administrator rights were needed and not had
	exitRefused     = 6 // refused for memory or safety reasons; --force overrides
	exitUnsupported = 7 // not possible on this OS or machine
	exitExists      = 8 // a disk with that name is already mounted
	exitCancelled   = 9 // the user cancelled a prompt
)

// App is the CLI with everything it touches injected, so tests run it against
// the in-memory engine and golden files.
type App struct {
	Stdout io.Writer
	Stderr io.Writer
	Stdin  io.Reader
	// NewEngine returns the engine; called lazily so `help` works everywhere.
	NewEngine func() (ramdisk.Engine, error)
	Paths     ramdisk.Paths
	Getenv    func(string) string
	Now       func() time.Time
	// Interactive is true when stderr is a terminal: progress lines redraw.
	Interactive bool
	// AskOK is true when questions can be asked: Stdin is a terminal
	// (forget's "[y/N]").
	AskOK bool
	// Compress restores kept and mirrored contents compressed on the disk
	// (create/restore --compress; macOS).
	Compress bool
	// NewKeeper makes the contents keeper for the data folder; nil is
	// keeper.NewKeeper (tests take the in-memory engine's folders for disks).
	NewKeeper func(data string) *keeper.Keeper
	// NewUpdates makes the update use case; nil is the built-in one
	// (App.updates).
	NewUpdates func() *upd.Service

	// langP is the menu's language (lang), resolved once.
	langOnce sync.Once
	langP    *i18n.Printer

	engine ramdisk.Engine
	noticeState
	agentState
}

func newApp() *App {
	a := &App{
		Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin,
		NewEngine: newEngine, Getenv: os.Getenv, Now: time.Now,
		Interactive: isTerminal(os.Stderr), AskOK: isTerminal(os.Stdin),
	}
	p, err := ramdisk.DefaultPaths(runtime.GOOS, os.Getenv)
	if err == nil {
		a.Paths = p
	}
	return a
}

// Engine returns the platform engine, made once.
func (a *App) Engine() (ramdisk.Engine, error) {
	if a.engine == nil {
		e, err := a.NewEngine()
		if err != nil {
			return nil, err
		}
		a.engine = e
	}
	return a.engine, nil
}

// Store is the settings file.
func (a *App) Store() (settingsfile.Store, error) {
	if a.Paths.Settings == "" {
		return settingsfile.Store{}, errors.New("no settings location: HOME is not set")
	}
	return settingsfile.Store{Path: a.Paths.Settings}, nil
}

// Main runs the CLI (or, with no arguments, the menu-bar app) and returns
// the exit code.
func (a *App) Main(args []string) int { return a.run(context.Background(), args) }

// run is Main under ctx (the agent runs each request under the request's).
func (a *App) run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		return a.exit(runTray(ctx, a))
	}
	if args[0] == "--selftest" { // the app started with --selftest (open RAMBar.app --args --selftest)
		args = append([]string{"selftest", "--notify"}, args[1:]...)
	}
	c, rest, err := resolve(args)
	if err != nil {
		return a.exit(err)
	}
	in, help, err := parse(c, rest)
	switch {
	case err != nil:
		return a.exitJSON(c, rest, nil, err)
	case help:
		printUsage(a.Stdout, a.say(), c)
		return exitOK
	case c.Run == nil: // a group of sub-verbs, given none
		return a.exit(c.usageErr(text{}))
	}
	if code, ok := a.viaAgent(ctx, c, rest, in); ok {
		return code
	}
	out := &countingWriter{w: a.Stdout}
	if c.JSON {
		a.Stdout = out
		defer func() { a.Stdout = out.w }()
	}
	return a.exitJSON(c, rest, out, c.Run(ctx, a, in))
}

// exitJSON is exit, and when --json was asked for and the command printed
// no document of its own, the error as a JSON document on stdout too
// ({"version": 1, "error": "...", "exit": N}; docs/json.md, "Errors").
func (a *App) exitJSON(c *command, args []string, out *countingWriter, err error) int {
	code := a.exit(err)
	if err == nil || !c.JSON || !jsonAsked(args) || out != nil && out.n > 0 {
		return code
	}
	var shown shownError
	if errors.As(err, &shown) {
		err = shown.error
	}
	w := a.Stdout
	if out != nil {
		w = out.w
	}
	writeJSON(w, errorJSON{Version: jsonVersion, Error: err.Error(), Exit: code})
	return code
}

// errorJSON is a failed command's document under --json.
type errorJSON struct {
	Version int    `json:"version"`
	Error   string `json:"error"`
	Exit    int    `json:"exit"`
}

// jsonAsked tells whether --json is among args before a lone "--", even on
// a command line that did not parse.
func jsonAsked(args []string) bool {
	for _, s := range args {
		switch s {
		case "--":
			return false
		case "--json", "-json", "--json=true", "-json=true", "--json=1":
			return true
		}
	}
	return false
}

// countingWriter counts what a command wrote to stdout.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// exit prints err as one line on stderr (then the items of a listError,
// one a line) and maps it to an exit code.
func (a *App) exit(err error) int {
	if err == nil {
		return exitOK
	}
	var shown shownError
	if errors.As(err, &shown) {
		return exitCode(shown.error)
	}
	fmt.Fprintln(a.Stderr, sayError(a.say(), err))
	var le listError
	if errors.As(err, &le) {
		for _, item := range le.list {
			fmt.Fprintf(a.Stderr, "  %s\n", strings.ReplaceAll(item, "\n", "; "))
		}
	}
	return exitCode(err)
}

// listError is an error of one line followed by a list the user picks
// from (the snapshots an ambiguous --snapshot may mean), each item printed
// on a line of its own.
type listError struct {
	error
	list []string
}

func (e listError) Unwrap() error { return e.error }

func exitCode(err error) int {
	var ue *usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, ramdisk.ErrName), errors.Is(err, ramdisk.ErrSize),
		errors.Is(err, ramdisk.ErrFileSystem), errors.Is(err, ramdisk.ErrOption):
		return exitUsage
	case errors.Is(err, ramdisk.ErrBusy):
		return exitBusy
	case errors.Is(err, ramdisk.ErrNotFound):
		return exitNotFound
	case errors.Is(err, ramdisk.ErrNeedsAdmin):
		return exitNeedsAdmin
	case errors.Is(err, ramdisk.ErrTooLarge), errors.Is(err, errRefused):
		return exitRefused
	case errors.Is(err, ramdisk.ErrUnsupported):
		return exitUnsupported
	case errors.Is(err, ramdisk.ErrExists):
		return exitExists
	case errors.Is(err, ramdisk.ErrCancelled):
		return exitCancelled
	}
	return exitError
}

// shownError is an error already said on stderr: the exit code is its own,
// and it is not said again.
type shownError struct{ error }

func (e shownError) Unwrap() error { return e.error }

// errRefused marks a refusal for safety reasons (not memory), e.g. saving an
// empty disk over a non-empty backing copy; --force overrides.
var errRefused = i18n.New("refused")

func isTerminal(f *os.File) bool {
	// A character device is not enough (/dev/null is one): ask for the
	// terminal's settings, which only a terminal has.
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}
