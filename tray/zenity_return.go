package tray

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"rambar/internal/atomicfile"
)

// Return in the New RAM Disk window (zenity --forms, Linux).
//
// zenity 3.x's forms window has no default button: in its zenity.ui the OK
// button (zenity_forms_ok_button) has neither can-default nor has-default,
// forms.c sets no default response, and its entries are plain
// gtk_entry_new() without activates-default (GNOME/zenity 3.44.0,
// src/forms.c zenity_forms_dialog and src/zenity.ui). So Return in a field
// only emits the entry's own "activate", and nothing happens; a GTK CSS
// binding set that unbinds Return on entries lets the key reach the window,
// but its "activate-default" then finds no default widget and activates the
// focused entry again (tried under Xvfb: the window stays open).
//
// zenity 3.x loads ./zenity.ui before its installed file (src/util.c,
// zenity_util_load_ui_file, "Try current dir, for debugging"). So the forms
// window runs in a private folder of RAMBar's holding a copy of the
// installed zenity.ui whose OK button has Return, Enter and ISO_Enter as
// accelerators: GtkWindow handles accelerators before the focused widget
// sees the key (gtk_window_key_press_event calls gtk_window_activate_key
// first), so Return in any field presses OK, which zenity answers as
// always. Nothing else changes: the user's GTK settings, theme and CSS
// apply as before. zenity 4 (GTK 4) reads its windows from its own
// resources and ignores the copy.

// formsOKButton opens the forms window's OK button in zenity.ui.
const formsOKButton = `<object class="GtkButton" id="zenity_forms_ok_button">`

// returnAccels make Return and both Enter keys press the button they are in.
const returnAccels = `<accelerator key="Return" signal="clicked"/>` +
	`<accelerator key="KP_Enter" signal="clicked"/><accelerator key="ISO_Enter" signal="clicked"/>`

// maxUIFile bounds the installed zenity.ui read (3.44's is 51 KiB).
const maxUIFile = 1 << 20

// installedUI is where the zenity tool at tool keeps its windows:
// PREFIX/share/zenity/zenity.ui for PREFIX/bin/zenity.
func installedUI(tool string) string {
	return filepath.Join(filepath.Dir(filepath.Dir(tool)), "share", "zenity", "zenity.ui")
}

// withReturn is the installed zenity.ui with Return on the forms window's
// OK button, or an error when that button is not there exactly once (a
// zenity this was not written for: it then runs as installed).
func withReturn(ui []byte) ([]byte, error) {
	if n := bytes.Count(ui, []byte(formsOKButton)); n != 1 {
		return nil, fmt.Errorf("zenity.ui: %d forms OK buttons, want 1", n)
	}
	return bytes.Replace(ui, []byte(formsOKButton), []byte(formsOKButton+returnAccels), 1), nil
}

// formsUIDir makes dir (RAMBar's, 0700) hold the zenity.ui that gives the
// zenity tool's forms window Return, copied from tool's installed file
// each time (so it always matches the installed zenity), and returns dir
// to run zenity in.
func formsUIDir(dir, tool string) (string, error) {
	if dir == "" {
		return "", errors.New("no folder for zenity.ui")
	}
	f, err := os.Open(installedUI(tool))
	if err != nil {
		return "", fmt.Errorf("zenity.ui: %w", err)
	}
	defer f.Close()
	ui, err := io.ReadAll(io.LimitReader(f, maxUIFile+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("zenity.ui: read: %w", err)
	case len(ui) > maxUIFile:
		return "", fmt.Errorf("zenity.ui: larger than %d bytes", maxUIFile)
	}
	patched, err := withReturn(ui)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("mkdir %s: %w", dir, err)
	}
	if st, err := os.Lstat(dir); err != nil || !st.IsDir() {
		return "", fmt.Errorf("%s is not a folder", dir)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("chmod %s: %w", dir, err)
	}
	if err := atomicfile.WriteFast(filepath.Join(dir, "zenity.ui"), patched, 0o600); err != nil {
		return "", err
	}
	return dir, nil
}
