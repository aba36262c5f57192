package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"rambar/mirror"
	"rambar/ramdisk"
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

// usageError is a misuse of the CLI (unknown verb, missing argument, bad
// flag); it exits with exitUsage.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// errUsage can be wrapped (fmt.Errorf("%w: rambar x ARGS", errUsage)) to
// mark a usage error; the message then reads "usage: rambar x ARGS".
var errUsage error = &usageError{"usage"}

// usagef returns a usageError.
func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

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
	// Compress restores kept and mirrored contents compressed on the disk
	// (create/restore --compress; macOS).
	Compress bool
	// NewKeeper makes the contents keeper for the data folder; nil is
	// mirror.NewKeeper (tests take the in-memory engine's folders for disks).
	NewKeeper func(data string) *mirror.Keeper

	engine ramdisk.Engine
}

func newApp() *App {
	a := &App{
		Stdout: os.Stdout, Stderr: os.Stderr, Stdin: os.Stdin,
		NewEngine: newEngine, Getenv: os.Getenv, Now: time.Now,
		Interactive: isTerminal(os.Stderr),
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
func (a *App) Store() (ramdisk.Store, error) {
	if a.Paths.Settings == "" {
		return ramdisk.Store{}, errors.New("no settings location: HOME is not set")
	}
	return ramdisk.Store{Path: a.Paths.Settings}, nil
}

// command is one CLI verb. Each lives in its own cmd_<verb>.go and registers
// itself in init.
type command struct {
	Name    string
	Args    string // synopsis after the verb
	Summary string
	Order   int  // position in help
	Hidden  bool // not listed in help
	Run     func(ctx context.Context, a *App, args []string) error
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.Name]; dup {
		panic("rambar: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// Main runs the CLI (or, with no arguments, the menu-bar app) and returns
// the exit code.
func (a *App) Main(args []string) int {
	ctx := context.Background()
	if len(args) == 0 {
		return a.exit(runTray(ctx, a))
	}
	verb := args[0]
	switch verb {
	case "-h", "--help":
		verb = "help"
	case "-v", "--version":
		verb = "version"
	}
	c, ok := commands[verb]
	if !ok {
		return a.exit(usagef("unknown command %q; run 'rambar help'", verb))
	}
	return a.exit(c.Run(ctx, a, args[1:]))
}

// exit prints err as one line on stderr and maps it to an exit code.
func (a *App) exit(err error) int {
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	msg := err.Error()
	fmt.Fprintf(a.Stderr, "rambar: %s\n", strings.ReplaceAll(msg, "\n", "; "))
	return exitCode(err)
}

func exitCode(err error) int {
	var ue *usageError
	switch {
	case errors.As(err, &ue), errors.Is(err, ramdisk.ErrName), errors.Is(err, ramdisk.ErrSize),
		errors.Is(err, ramdisk.ErrFileSystem):
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

// errRefused marks a refusal for safety reasons (not memory), e.g. saving an
// empty disk over a non-empty backing copy; --force overrides.
var errRefused = errors.New("refused")

// parseFlags parses flags anywhere among the arguments (`create Scratch 4G
// --fs hfs+` and `create --fs hfs+ Scratch 4G` both work) and returns the
// positional ones. A lone "--" ends flags; what follows is positional.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		for len(args) > 0 && isNegativeNumber(args[0]) {
			pos, args = append(pos, args[0]), args[1:]
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// isNegativeNumber tells "-1G" (a bad size, reported as such) from a flag.
func isNegativeNumber(s string) bool {
	return len(s) > 1 && s[0] == '-' && (s[1] >= '0' && s[1] <= '9' || s[1] == '.')
}

// wantArgs checks the number of positional arguments.
func wantArgs(c string, pos []string, min, max int) error {
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		cmd := commands[c]
		return usagef("usage: rambar %s %s", c, cmd.Args)
	}
	return nil
}

func sortedCommands() []*command {
	var cs []*command
	for _, c := range commands {
		if !c.Hidden {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Order != cs[j].Order {
			return cs[i].Order < cs[j].Order
		}
		return cs[i].Name < cs[j].Name
	})
	return cs
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
