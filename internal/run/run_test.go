package run

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
)

func TestSystemPassesArgvLiterally(t *testing.T) {
	// Shell metacharacters in an argument reach the program as they are:
	// nothing is ever handed to a shell.
	evil := `Scratch"; rm -rf / #$(reboot)` + "`id`"
	out, err := Output(context.Background(), System(), "printf", "%s", evil)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != evil {
		t.Errorf("got %q, want %q", out, evil)
	}
}

func TestSystemEnvAndStderr(t *testing.T) {
	res, err := System().Run(context.Background(), Cmd{Argv: []string{"sh", "-c", `echo "$LC_ALL $X"; echo oops >&2`}, Env: []string{"X=1"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(res.Stdout)); got != "C 1" {
		t.Errorf("stdout %q, want %q", got, "C 1")
	}
	if got := strings.TrimSpace(string(res.Stderr)); got != "oops" {
		t.Errorf("stderr %q", got)
	}
}

func TestSystemFailure(t *testing.T) {
	_, err := System().Run(context.Background(), Cmd{Argv: []string{"sh", "-c", "echo 'hdiutil: detach failed - Resource busy' >&2; exit 16"}})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %T %v, want *Error", err, err)
	}
	if e.ExitCode != 16 || ExitCode(err) != 16 {
		t.Errorf("exit code %d", e.ExitCode)
	}
	if !strings.HasPrefix(e.Argv[0], "/") {
		t.Errorf("argv[0] %q is not absolute", e.Argv[0])
	}
	if want := "sh -c: exit 16: hdiutil: detach failed - Resource busy"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err, want)
	}
}

func TestResolve(t *testing.T) {
	p, err := Resolve("sh")
	if err != nil || !strings.HasPrefix(p, "/") {
		t.Fatalf("Resolve(sh) = %q, %v", p, err)
	}
	// PATH is never consulted: a look-alike in PATH is ignored.
	dir := t.TempDir()
	os.WriteFile(dir+"/rambar-no-such-tool", []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", dir)
	if _, err := Resolve("rambar-no-such-tool"); !errors.Is(err, ErrToolMissing) {
		t.Errorf("Resolve found a PATH-only tool: %v", err)
	}
	if _, err := Resolve("../sh"); err == nil {
		t.Error("relative path accepted")
	}
	if Has("rambar-no-such-tool") {
		t.Error("Has is true for a missing tool")
	}
	_, err = System().Run(context.Background(), Cmd{Argv: []string{"rambar-no-such-tool"}})
	if ExitCode(err) != -1 || !errors.Is(err, ErrToolMissing) {
		t.Errorf("missing tool: %v", err)
	}
}

func TestSystemContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := System().Run(ctx, Cmd{Argv: []string{"sleep", "5"}}); err == nil {
		t.Error("cancelled context ran to completion")
	}
}
