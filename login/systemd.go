package login

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rambar/internal/atomicfile"
	"rambar/internal/run"
)

// The headless agent: `rambar agent` (the app's keeping without its menu)
// started as a service, for a machine used without the menu bar. On Linux
// a systemd user service, ~/.config/systemd/user/rambar.service, enabled
// for default.target (the user's manager starts it at login, and at boot
// with lingering) and started; on macOS a LaunchAgent of its own label.

const (
	// UnitName is the systemd user service's name.
	UnitName = "rambar.service"
	// HeadlessLabel is the headless LaunchAgent's label.
	HeadlessLabel = "app.rambar.agent"
	// stopTimeout is how long systemd waits after SIGTERM before SIGKILL:
	// longer than the agent's last save may take (cocoa.LogoutBudget, 30 s).
	stopTimeout = 60
)

// ErrNoManager is wrapped when no systemd user manager answers (no login
// session, no lingering): the service is written and enabled, and starts
// with the user's manager.
var ErrNoManager = errors.New("no systemd user manager answers here; the service starts with it (at your next login, or at boot after 'loginctl enable-linger')")

// NewHeadless is New for the headless agent: its file is the systemd user
// service (Linux, in $XDG_CONFIG_HOME/systemd/user) or the LaunchAgent
// HeadlessLabel (macOS). env are KEY=VALUE pairs the service is started
// with.
func NewHeadless(goos string, getenv func(string) string, exe string, uid int, r run.Runner, env []string) (*Item, error) {
	it, err := New(goos, getenv, exe, uid, r)
	if err != nil {
		return nil, err
	}
	it.Headless, it.Env = true, env
	switch goos {
	case "darwin":
		it.SelfIsAgent = getenv("XPC_SERVICE_NAME") == HeadlessLabel
	case "linux":
		it.Dir = filepath.Join(filepath.Dir(it.Dir), "systemd", "user")
	}
	return it, nil
}

// quoteUnitArg quotes one word of a unit's ExecStart (systemd.service(5),
// "Command lines"; systemd.unit(5), "Specifiers"): % doubled, $ doubled
// (no variable expansion), and a word with a space, a quote or a
// backslash in double quotes with \ and " escaped.
func quoteUnitArg(arg string) string {
	arg = strings.NewReplacer("%", "%%", "$", "$$").Replace(arg)
	if arg != "" && !strings.ContainsAny(arg, " \t\"'\\;") {
		return arg
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(arg) + `"`
}

// unitFile is the service for exe.
func unitFile(exe string, env []string) []byte {
	var b bytes.Buffer
	b.WriteString("[Unit]\n")
	b.WriteString("Description=RAMBar agent: keeps RAM disks saved without the menu bar\n")
	b.WriteString("\n[Service]\n")
	b.WriteString("Type=simple\n")
	b.WriteString("ExecStart=" + quoteUnitArg(exe) + " agent\n")
	for _, kv := range env {
		b.WriteString("Environment=" + quoteUnitArg(kv) + "\n")
	}
	b.WriteString("Restart=on-failure\n")
	b.WriteString("RestartSec=5\n")
	// SIGTERM to the agent alone: it saves, then ends what it started.
	b.WriteString("KillMode=mixed\n")
	fmt.Fprintf(&b, "TimeoutStopSec=%d\n", stopTimeout)
	b.WriteString("\n[Install]\n")
	b.WriteString("WantedBy=default.target\n")
	return b.Bytes()
}

// unitProgram reads the program a unit file starts (ExecStart's first
// word, unquoted).
func unitProgram(data []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "ExecStart=")
		if !ok {
			continue
		}
		v = strings.TrimLeft(v, "-@:+!")
		var word string
		if rest, ok := strings.CutPrefix(v, `"`); ok {
			var w strings.Builder
			for i := 0; i < len(rest) && rest[i] != '"'; i++ {
				if rest[i] == '\\' && i+1 < len(rest) {
					i++
				}
				w.WriteByte(rest[i])
			}
			word = w.String()
		} else {
			word, _, _ = strings.Cut(v, " ")
		}
		return strings.NewReplacer("%%", "%", "$$", "$").Replace(word)
	}
	return ""
}

// wantsLink is the link that enables the unit: what systemctl enable
// makes for WantedBy=default.target.
func (it *Item) wantsLink() string {
	return filepath.Join(it.Dir, "default.target.wants", UnitName)
}

// systemctl runs systemctl --user; a manager that does not answer is
// ErrNoManager.
func (it *Item) systemctl(ctx context.Context, args ...string) ([]byte, error) {
	out, err := run.Output(ctx, it.Runner, append([]string{"systemctl", "--user"}, args...)...)
	if err == nil {
		return out, nil
	}
	var re *run.Error
	if errors.As(err, &re) && (re.ExitCode == -1 && errors.Is(err, run.ErrToolMissing) ||
		bytes.Contains(re.Stderr, []byte("Failed to connect to")) || bytes.Contains(re.Stderr, []byte("No medium found")) ||
		bytes.Contains(re.Stderr, []byte("$XDG_RUNTIME_DIR"))) {
		return out, fmt.Errorf("systemctl --user %s: %w", strings.Join(args, " "), ErrNoManager)
	}
	return out, fmt.Errorf("systemctl --user %s: %w", strings.Join(args, " "), err)
}

func (it *Item) statusUnit(ctx context.Context, askManager bool) (Status, error) {
	st := Status{Path: it.Path()}
	data, err := os.ReadFile(it.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("read the service: %w", err)
	}
	st.Program = unitProgram(data)
	st.Stale = st.Program != it.Executable
	if target, err := os.Readlink(it.wantsLink()); err == nil && filepath.Base(target) == UnitName {
		st.Enabled = true
	}
	if askManager {
		out, err := it.systemctl(ctx, "is-active", UnitName)
		if err == nil || !errors.Is(err, ErrNoManager) && run.ExitCode(err) > 0 {
			active := strings.TrimSpace(string(out)) == "active"
			st.Active = &active
		}
	}
	return st, nil
}

// enableUnit writes the service, enables it (the link systemctl enable
// makes) and asks the user's manager to load and start it; without a
// manager the file and link stay and ErrNoManager is returned.
func (it *Item) enableUnit(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(it.wantsLink()), 0o755); err != nil {
		return fmt.Errorf("service: %w", err)
	}
	if err := atomicfile.WriteFile(it.Path(), unitFile(it.Executable, it.Env), 0o644); err != nil {
		return fmt.Errorf("service: %w", err)
	}
	link := it.wantsLink()
	if target, err := os.Readlink(link); err != nil || target != "../"+UnitName {
		os.Remove(link)
		if err := os.Symlink("../"+UnitName, link); err != nil {
			return fmt.Errorf("service: enable: %w", err)
		}
	}
	if _, err := it.systemctl(ctx, "daemon-reload"); err != nil {
		return err
	}
	// restart: a service already running an older file runs the new one.
	_, err := it.systemctl(ctx, "restart", UnitName)
	return err
}

// disableUnit stops the service (its last save runs), disables and
// removes it.
func (it *Item) disableUnit(ctx context.Context) error {
	_, err := it.systemctl(ctx, "stop", UnitName)
	if err != nil && !errors.Is(err, ErrNoManager) && run.ExitCode(err) != 5 { // 5: no such unit loaded
		return err
	}
	for _, p := range []string{it.wantsLink(), it.Path()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("service: %w", err)
		}
	}
	if _, err := it.systemctl(ctx, "daemon-reload"); err != nil && !errors.Is(err, ErrNoManager) {
		return err
	}
	return nil
}
