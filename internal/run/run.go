// Package run is RAMBar's one way to start another program: argv only, never
// a shell string; tools resolved to absolute paths in the system folders (so a
// Finder-launched app with launchd's minimal PATH, or a PATH holding a look-alike
// tool, behaves the same); LC_ALL=C so text output can be matched; stdout and
// stderr kept apart; failures that carry argv, exit code and stderr.
package run

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Cmd is one program to run.
type Cmd struct {
	// Argv is the program and its arguments. Argv[0] is a bare tool name
	// ("hdiutil") resolved in systemDirs, or an absolute path.
	Argv []string
	// Stdin is fed to the program when not nil.
	Stdin io.Reader
	// Env is added to the environment (KEY=VALUE).
	Env []string
	// Stdout, when set, receives output as it comes (progress); it is then not
	// kept in Result.Stdout.
	Stdout io.Writer
}

// Result is what a finished program printed.
type Result struct {
	Stdout []byte
	Stderr []byte
}

// Runner runs programs. The system one is System(); tests use runtest.
type Runner interface {
	Run(ctx context.Context, c Cmd) (Result, error)
}

// Error is a program that could not start or exited non-zero. Stderr is kept
// whole; Error() shows its first lines.
type Error struct {
	Argv     []string
	ExitCode int // -1 when the program did not start or was killed
	Stdout   []byte
	Stderr   []byte
	Err      error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(string(e.Stderr))
	if msg == "" {
		msg = strings.TrimSpace(string(e.Stdout))
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 && len(msg) > 300 {
		msg = msg[:i]
	}
	name := "?"
	if len(e.Argv) > 0 {
		name = filepath.Base(e.Argv[0])
		if len(e.Argv) > 1 {
			name += " " + e.Argv[1]
		}
	}
	switch {
	case e.ExitCode < 0:
		return fmt.Sprintf("%s: %v", name, e.Err)
	case msg != "":
		return fmt.Sprintf("%s: exit %d: %s", name, e.ExitCode, msg)
	}
	return fmt.Sprintf("%s: exit %d", name, e.ExitCode)
}

// Unwrap returns the underlying exec error.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns the exit code of a failed program in err's chain, or -1.
func ExitCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.ExitCode
	}
	return -1
}

// systemDirs are searched, in order, for a bare tool name: the system's
// folders first, then Homebrew's (fio, say, for the benchmark's comparison).
var systemDirs = []string{"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin", "/opt/homebrew/bin"}

// ErrToolMissing is wrapped when a tool is not installed.
var ErrToolMissing = errors.New("tool not installed")

// Resolve finds a tool's absolute path in systemDirs.
func Resolve(name string) (string, error) {
	if filepath.IsAbs(name) {
		return name, nil
	}
	if strings.ContainsRune(name, '/') {
		return "", fmt.Errorf("run: tool %q must be a bare name or an absolute path", name)
	}
	for _, d := range systemDirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w (looked in %s)", name, ErrToolMissing, strings.Join(systemDirs, ", "))
}

// Has reports whether a tool is installed.
func Has(name string) bool { _, err := Resolve(name); return err == nil }

type system struct{}

// System returns the Runner that starts real programs.
func System() Runner { return system{} }

func (system) Run(ctx context.Context, c Cmd) (Result, error) {
	if len(c.Argv) == 0 {
		return Result{}, errors.New("run: empty argv")
	}
	path, err := Resolve(c.Argv[0])
	if err != nil {
		return Result{}, &Error{Argv: c.Argv, ExitCode: -1, Err: err}
	}
	cmd := exec.CommandContext(ctx, path, c.Argv[1:]...)
	cmd.Env = append(append(os.Environ(), "LC_ALL=C", "LANG=C"), c.Env...)
	cmd.Stdin = c.Stdin
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	}
	cmd.Stderr = &errb
	err = cmd.Run()
	res := Result{Stdout: out.Bytes(), Stderr: errb.Bytes()}
	if err != nil {
		code := -1
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		}
		return res, &Error{Argv: append([]string{path}, c.Argv[1:]...), ExitCode: code, Stdout: res.Stdout, Stderr: res.Stderr, Err: err}
	}
	return res, nil
}

// Output runs argv and returns stdout: the common case.
func Output(ctx context.Context, r Runner, argv ...string) ([]byte, error) {
	res, err := r.Run(ctx, Cmd{Argv: argv})
	return res.Stdout, err
}
