package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"rambar/bench"
	"rambar/disks"
	"rambar/internal/run"
	"rambar/tray"
)

// trayDeps wires the tray to the engine, the settings and this OS's tools.
// Environment (for tests and the curious):
//
//	RAMBAR_REFRESH=200ms    how often disks and memory are listed (default 2s)
//	RAMBAR_USAGE_EVERY=10s  how often a costly Usage (macOS footprint) is measured
//	RAMBAR_NOTIFY=log       notifications go to stderr only, not to the desktop
//	RAMBAR_DEBUG=1          diagnostics on stderr
//	RAMBAR_TRAY_WAIT=30s    how long to wait on Linux for a panel's system tray (default 15s)
func (a *App) trayDeps() (tray.Deps, error) {
	e, err := a.Engine()
	if err != nil {
		return tray.Deps{}, err
	}
	st, err := a.Store()
	if err != nil {
		return tray.Deps{}, err
	}
	d := tray.Deps{
		Engine:   e,
		Store:    st,
		Open:     openFolder,
		CopyPath: copyText,
		Version:  version,
		Lang:     a.lang(),
	}
	if svc, err := a.service(); err == nil {
		d.Disks = disks.NewMenu(svc)
		d.Caches = trayCaches{svc}
		for _, err := range svc.Caches().Repair(context.Background()) { // the menu starts at login: no cache may point at a missing disk
			fmt.Fprintf(a.Stderr, "rambar: warning: %v\n", err)
		}
	}
	d.LaunchAtLogin = &tray.LoginItem{
		Get: func() (bool, error) { return a.LoginEnabled(context.Background()) },
		Set: func(on bool) error { return a.SetLogin(context.Background(), on) },
	}
	d.Benchmark = a.trayBenchmark(bench.Options{Quick: true})
	d.Updates = a.trayUpdates(a.updates(), d.Lang)
	if tray.DialogsAvailable() {
		z := tray.Zenity{Lang: d.Lang}
		if a.Paths.Data != "" {
			z.Dir = filepath.Join(a.Paths.Data, "zenity")
		}
		d.Dialogs, d.EditPresets = z, z
	}
	notes := a.notices()
	d.Notify = notes.Notify
	if m, ok := d.Disks.(*disks.Menu); ok {
		noticesOf(m, notes, d.Lang)
	}
	if a.Getenv("RAMBAR_DEBUG") != "" {
		d.Logf = func(format string, args ...any) { fmt.Fprintf(a.Stderr, "rambar: "+format+"\n", args...) }
	}
	for _, x := range []struct {
		env string
		dst *time.Duration
	}{{"RAMBAR_REFRESH", &d.Refresh}, {"RAMBAR_USAGE_EVERY", &d.UsageEvery}, {"RAMBAR_TRAY_WAIT", &d.HostWait}} {
		if s := a.Getenv(x.env); s != "" {
			v, err := time.ParseDuration(s)
			if err != nil || v < 10*time.Millisecond {
				return tray.Deps{}, fmt.Errorf("%w: %s=%q: want a duration of at least 10ms, like 500ms or 2s", errUsage, x.env, s)
			}
			*x.dst = v
		}
	}
	return d, nil
}

// openFolder shows a folder: `open` on macOS, `xdg-open` elsewhere.
func openFolder(path string) error {
	if runtime.GOOS == "darwin" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, err := run.System().Run(ctx, run.Cmd{Argv: []string{"open", "--", path}})
		return err
	}
	if !run.Has("xdg-open") {
		return fmt.Errorf("cannot open %s: xdg-open is not installed (Debian and Ubuntu: apt install xdg-utils)", path)
	}
	return startDetached("xdg-open", path)
}

// startDetached starts a tool that may stay running (a file manager started
// by xdg-open, a clipboard owner forked by xclip) with no pipes to wait on.
// It reports a failure within the first two seconds; later it is reaped quietly.
func startDetached(tool string, args ...string) error {
	return startDetachedIn(nil, tool, args...)
}

func startDetachedIn(stdin []byte, tool string, args ...string) error {
	p, err := run.Resolve(tool)
	if err != nil {
		return err
	}
	cmd := exec.Command(p, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", tool, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s: %w", tool, err)
		}
		return nil
	case <-time.After(2 * time.Second):
		return nil
	}
}

// copyText puts text on the clipboard: pbcopy on macOS; wl-copy under
// Wayland or xclip under X11 when installed. Otherwise it fails and the tray
// shows the text in a notification.
func copyText(text string) error {
	switch {
	case runtime.GOOS == "darwin":
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := run.System().Run(ctx, run.Cmd{Argv: []string{"pbcopy"}, Stdin: strings.NewReader(text)})
		return err
	case os.Getenv("WAYLAND_DISPLAY") != "" && run.Has("wl-copy"):
		return startDetachedIn([]byte(text), "wl-copy")
	case os.Getenv("DISPLAY") != "" && run.Has("xclip"):
		return startDetachedIn([]byte(text), "xclip", "-selection", "clipboard")
	}
	return errors.New("no clipboard tool (install wl-clipboard or xclip)")
}
