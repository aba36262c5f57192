package tray

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/ncruces/zenity"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Result implements Dialogs. On Linux it is a zenity --text-info window in
// a monospace font, sized to the text, with action as its OK button beside
// Close; through osascript (macOS without the native windows) a message
// with action as an extra button.
func (z Zenity) Result(ctx context.Context, title, text, action string) (bool, error) {
	if runtime.GOOS != "darwin" {
		if tool, err := exec.LookPath("zenity"); err == nil {
			return textInfo(ctx, z.Lang, tool, title, text, action)
		}
	}
	opts := []zenity.Option{zenity.Title(title), zenity.Context(ctx)}
	if action != "" {
		opts = append(opts, zenity.ExtraButton(action))
	}
	err := zenity.Info(text, opts...)
	switch {
	case errors.Is(err, zenity.ErrExtraButton):
		return true, nil
	case err != nil && !cancelled(err):
		return false, fmt.Errorf("zenity info: %w", err)
	}
	return false, nil
}

// textInfoArgs is the zenity command line of a Result window: text read
// from stdin, a monospace font, a size that shows lines lines of 72
// columns, action (when set) as OK and Close as Cancel.
func textInfoArgs(p *i18n.Printer, title, action string, lines int) []string {
	height := min(120+18*lines, 720)
	args := []string{"--text-info", "--title=" + title, "--font=Monospace 10",
		"--width=680", "--height=" + strconv.Itoa(height)}
	if action == "" {
		return append(args, "--ok-label="+p.T("Close"))
	}
	return append(args, "--ok-label="+action, "--cancel-label="+p.T("Close"))
}

// textInfo shows text with the zenity tool and reports whether action
// (zenity's OK) was pressed; Close, Esc and closing the window are not.
func textInfo(ctx context.Context, p *i18n.Printer, tool, title, text, action string) (bool, error) {
	cmd := exec.CommandContext(ctx, tool, textInfoArgs(p, title, action, strings.Count(text, "\n")+1)...)
	cmd.Stdin = strings.NewReader(text)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return action != "", nil
	case errors.As(err, &ee) && ee.ExitCode() == 1:
		return false, nil
	case ctx.Err() != nil:
		return false, ramdisk.ErrCancelled
	}
	return false, fmt.Errorf("zenity --text-info: %w: %s", err, strings.TrimSpace(stderr.String()))
}
