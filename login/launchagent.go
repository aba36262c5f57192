package login

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"howett.net/plist"

	"rambar/internal/atomicfile"
	"rambar/internal/run"
)

// agent is the LaunchAgent plist (launchd.plist(5)).
type agent struct {
	Label                  string   `plist:"Label"`
	ProgramArguments       []string `plist:"ProgramArguments"`
	RunAtLoad              bool     `plist:"RunAtLoad"`
	ProcessType            string   `plist:"ProcessType,omitempty"`
	LimitLoadToSessionType string   `plist:"LimitLoadToSessionType,omitempty"`
	ExitTimeOut            int      `plist:"ExitTimeOut,omitempty"`
	// KeepAlive (the headless agent) starts it again after a crash.
	KeepAlive *keepAlive `plist:"KeepAlive,omitempty"`
}

// keepAlive is launchd's KeepAlive dictionary.
type keepAlive struct {
	SuccessfulExit bool `plist:"SuccessfulExit"`
}

// exitTimeOut is how many seconds launchd waits after SIGTERM before
// SIGKILL: longer than the whole logout budget (cocoa.LogoutBudget, 30 s),
// so that save can finish at logout.
const exitTimeOut = 60

// agentPlist is the agent file for exe: started at login in GUI sessions
// only, with an app's (absent) resource limits.
func agentPlist(exe string) ([]byte, error) {
	return encodeAgent(agent{Label: Label, ProgramArguments: []string{exe}, RunAtLoad: true, ProcessType: "Interactive", LimitLoadToSessionType: "Aqua", ExitTimeOut: exitTimeOut})
}

// headlessPlist is the headless agent's file: `rambar agent` at login in
// any session, started again after a crash (not after it exits 0: a second
// copy does, leaving the running one to it).
func headlessPlist(exe string) ([]byte, error) {
	return encodeAgent(agent{Label: HeadlessLabel, ProgramArguments: []string{exe, "agent"}, RunAtLoad: true,
		ExitTimeOut: exitTimeOut, KeepAlive: &keepAlive{SuccessfulExit: false}})
}

// plist is the item's agent file.
func (it *Item) plist() ([]byte, error) {
	if it.Headless {
		return headlessPlist(it.Executable)
	}
	return agentPlist(it.Executable)
}

func encodeAgent(a agent) ([]byte, error) {
	var b bytes.Buffer
	enc := plist.NewEncoderForFormat(&b, plist.XMLFormat)
	enc.Indent("\t")
	if err := enc.Encode(a); err != nil {
		return nil, fmt.Errorf("plist encode launch agent: %w", err)
	}
	if !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// readAgent reads the agent file; ok is false when there is none.
func (it *Item) readAgent() (a agent, ok bool, err error) {
	data, err := os.ReadFile(it.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return agent{}, false, nil
	}
	if err != nil {
		return agent{}, false, fmt.Errorf("read login item: %w", err)
	}
	if _, err := plist.Unmarshal(data, &a); err != nil {
		return agent{}, true, fmt.Errorf("%s is not a launch agent plist: %v", it.Path(), err)
	}
	return a, true, nil
}

func (it *Item) domain() string  { return "gui/" + strconv.Itoa(it.UID) }
func (it *Item) service() string { return it.domain() + "/" + it.label() }

func (it *Item) statusDarwin(ctx context.Context, askLaunchd bool) (Status, error) {
	st := Status{Path: it.Path()}
	a, ok, err := it.readAgent()
	if err != nil {
		return st, err
	}
	if ok && a.Label == it.label() && len(a.ProgramArguments) > 0 {
		st.Enabled = a.RunAtLoad
		st.Program = a.ProgramArguments[0]
		st.Stale = st.Program != it.Executable
	}
	if !askLaunchd {
		return st, nil
	}
	if loaded, err := it.loaded(ctx); err == nil {
		st.Loaded = &loaded
	}
	return st, nil
}

// loaded asks launchd whether the job is in the gui domain.
func (it *Item) loaded(ctx context.Context) (bool, error) {
	_, err := run.Output(ctx, it.Runner, "launchctl", "print", it.service())
	if err == nil {
		return true, nil
	}
	var re *run.Error
	if errors.As(err, &re) && (re.ExitCode == 113 || strings.Contains(string(re.Stderr), "Could not find service")) {
		return false, nil
	}
	return false, fmt.Errorf("launchctl print %s: %w", it.service(), err)
}

// launchctl error numbers (the exit status is the number in the message).
const (
	lcNoSuchProcess = 3   // "Boot-out failed: 3: No such process": not loaded
	lcIOError       = 5   // "Bootstrap failed: 5: Input/output error": loaded, torn down, or disabled
	lcInProgress    = 37  // "Operation already in progress": the old job is still being torn down
	lcNotFound      = 113 // "Could not find service": not loaded
	lcNoDomain      = 125 // "Domain does not support specified action": no GUI session
)

// How long a booted-out job may take to go: bootout returns before launchd
// has torn the job down (launchd.md §2a).
const (
	goneTries = 50
	goneEvery = 100 * time.Millisecond
)

func noDomain(err error) bool {
	var re *run.Error
	return errors.As(err, &re) && (re.ExitCode == lcNoDomain || strings.Contains(string(re.Stderr), "Domain does not support"))
}

func (it *Item) enableDarwin(ctx context.Context) error {
	data, err := it.plist()
	if err != nil {
		return err
	}
	old, hadFile := []byte(nil), false
	if b, err := os.ReadFile(it.Path()); err == nil {
		old, hadFile = b, true
	}
	if err := os.MkdirAll(it.Dir, 0o755); err != nil {
		return fmt.Errorf("login item: %w", err)
	}
	if err := atomicfile.WriteFile(it.Path(), data, 0o644); err != nil {
		return fmt.Errorf("login item: %w", err)
	}
	if it.SelfIsAgent {
		return nil // launchd started this very process from the agent: it is loaded
	}
	err = it.bootstrap(ctx, bytes.Equal(old, data))
	if err != nil && !errors.Is(err, ErrNoSession) {
		// Put the file back as it was, so the state stays what it was.
		if hadFile {
			atomicfile.WriteFile(it.Path(), old, 0o644)
		} else {
			os.Remove(it.Path())
		}
	}
	return err
}

// bootstrap loads the agent, first booting out a loaded job whose file
// changed so launchd reads the new one, and waiting until that job is gone
// (bootout is asynchronous: until then bootstrap fails with 37 or 5, and
// `launchctl print` still finds the old job, which must not be taken for the
// new one). A loaded job with the same file is left running. Error 5 with
// nothing loaded is also what a service turned off with `launchctl disable`
// gives: it is enabled (the user asked for it to start) and tried again.
func (it *Item) bootstrap(ctx context.Context, sameFile bool) error {
	loaded, err := it.loaded(ctx)
	if err != nil && !noDomain(err) {
		return err
	}
	if loaded {
		if sameFile {
			return nil
		}
		if err := it.bootout(ctx); err != nil {
			return err
		}
		if err := it.waitGone(ctx); err != nil {
			return err
		}
	}
	ioErrors := 0
	for try := 0; ; try++ {
		_, err := run.Output(ctx, it.Runner, "launchctl", "bootstrap", it.domain(), it.Path())
		if err == nil {
			return nil
		}
		if noDomain(err) {
			return fmt.Errorf("launchctl bootstrap %s: %w", it.domain(), ErrNoSession)
		}
		code := run.ExitCode(err)
		switch {
		case code == lcInProgress && try < goneTries:
			if err := it.pause(ctx); err != nil {
				return err
			}
			continue
		case code != lcIOError:
			return fmt.Errorf("launchctl bootstrap %s %s: %w", it.domain(), it.Path(), err)
		}
		// 5: no old job is left, so a job launchd now has is the new one,
		// loaded asynchronously.
		if now, perr := it.loaded(ctx); perr == nil && now {
			return nil
		}
		if ioErrors++; ioErrors == 2 {
			return fmt.Errorf("launchctl bootstrap %s %s: %w (the agent file may be owned by another user or group-writable)", it.domain(), it.Path(), err)
		}
		if _, err := run.Output(ctx, it.Runner, "launchctl", "enable", it.service()); err != nil {
			return fmt.Errorf("launchctl enable %s: %w", it.service(), err)
		}
	}
}

// waitGone waits until launchd no longer finds the job.
func (it *Item) waitGone(ctx context.Context) error {
	for try := 0; try < goneTries; try++ {
		loaded, err := it.loaded(ctx)
		if err != nil && !noDomain(err) {
			return err
		}
		if !loaded {
			return nil
		}
		if err := it.pause(ctx); err != nil {
			return err
		}
	}
	return fmt.Errorf("launchctl bootout %s: the old job is still there after %v", it.service(), goneTries*goneEvery)
}

// pause waits goneEvery (tests make it instant), or until ctx ends.
func (it *Item) pause(ctx context.Context) error {
	if it.wait != nil {
		return it.wait(ctx, goneEvery)
	}
	t := time.NewTimer(goneEvery)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// bootout unloads the job; a job that is not loaded, or a session without
// a GUI domain, is fine.
func (it *Item) bootout(ctx context.Context) error {
	_, err := run.Output(ctx, it.Runner, "launchctl", "bootout", it.service())
	if err == nil || noDomain(err) {
		return nil
	}
	switch run.ExitCode(err) {
	case lcNoSuchProcess, lcNotFound:
		return nil
	case lcIOError:
		if now, perr := it.loaded(ctx); perr == nil && !now {
			return nil
		}
	}
	return fmt.Errorf("launchctl bootout %s: %w", it.service(), err)
}

func (it *Item) disableDarwin(ctx context.Context) error {
	if !it.SelfIsAgent {
		if err := it.bootout(ctx); err != nil {
			return err
		}
	}
	if err := os.Remove(it.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("login item: %w", err)
	}
	return nil
}
