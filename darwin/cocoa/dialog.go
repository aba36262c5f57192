package cocoa

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Windows are the native windows (NSAlert, NSOpenPanel): each call activates
// the app first, so the window has keyboard focus, and blocks until the user
// answers or ctx ends (ramdisk.ErrCancelled either way).
type Windows interface {
	// Alert shows a and returns which button was pressed and what the field
	// or popup holds. The first button is the default (Return); the button
	// titled Alert.Cancel answers Esc.
	Alert(ctx context.Context, a Alert) (Answer, error)
	// ChooseFolder asks for a folder, starting at start.
	ChooseFolder(ctx context.Context, title, start string) (string, error)
	// Form shows the New RAM Disk window filled from f and returns what the
	// user made of it when Create was pressed. words is called on every
	// change; its text is shown under the fields and Create is enabled only
	// while it reports ok.
	Form(ctx context.Context, title string, f Form, opt FormOptions, words func(Form) (text string, ok bool)) (Form, error)
}

// Alert is a message with buttons and, at most, one text field, one popup
// or one fixed-pitch text.
type Alert struct {
	Title, Text string
	Buttons     []string
	// Field, when set, shows a text field holding *Field.
	Field *string
	// Choices, when set, shows a popup with Choice selected.
	Choices []string
	Choice  int
	// Mono, when set, is shown under Text in a fixed-pitch font (a table),
	// selectable so it can be copied.
	Mono string
	// Cancel is the title of the button that cancels (Esc): "Cancel" in the
	// user's language; "" is "Cancel".
	Cancel string
}

// cancelTitle is the title of a's cancelling button.
func (a Alert) cancelTitle() string {
	if a.Cancel == "" {
		return "Cancel"
	}
	return a.Cancel
}

// Answer is what the user did in an Alert.
type Answer struct {
	Button int // index in Alert.Buttons
	Text   string
	Choice int
}

// Form is what the New RAM Disk (and preset) window asks.
type Form struct {
	Name     string
	Size     string // as typed: "4G", "512M", "25%"
	FS       ramdisk.FileSystem
	Contents ramdisk.ContentMode
	Folder   string // the folder a Mirror disk loads and writes back
	// InPlace: the Mirror disk is mounted over Folder once loaded.
	InPlace bool
}

// FormOptions says which fields the window shows.
type FormOptions struct {
	// FileSystems are the popup's choices (hidden when fewer than two).
	FileSystems []ramdisk.FileSystem
	// Contents shows the contents row (none, keep, mirror a folder).
	Contents bool
	// Lang says the window's words (nil: English).
	Lang *i18n.Printer
}

func contentAt(i int) (ramdisk.ContentMode, bool) {
	if i < 0 || i >= len(ramdisk.ContentChoices) {
		return ramdisk.Discard, false
	}
	return ramdisk.ContentChoices[i].Mode, ramdisk.ContentChoices[i].InPlace
}

func fsIndex(fss []ramdisk.FileSystem, fs ramdisk.FileSystem) int {
	for i, f := range fss {
		if f == fs {
			return i
		}
	}
	return 0
}

// formOf is the Form the window's controls hold: the two text fields, the
// file-system and contents popups' indexes (out of range: the first), the
// folder chosen. Without a contents row the disk keeps nothing.
func formOf(name, size string, fsIdx, contentsIdx int, folder string, opt FormOptions) Form {
	f := Form{Name: name, Size: size, Folder: folder}
	if len(opt.FileSystems) > 0 {
		f.FS = opt.FileSystems[0]
		if fsIdx >= 0 && fsIdx < len(opt.FileSystems) {
			f.FS = opt.FileSystems[fsIdx]
		}
	}
	if opt.Contents {
		f.Contents, f.InPlace = contentAt(contentsIdx)
	}
	return f
}

// FormWords is what the window shows for f: words' text, after the checks
// the window owns itself (a name, a size, a folder to mirror).
func FormWords(f Form, words func(Form) (string, bool)) (string, bool) {
	return formWords(nil, f, words)
}

func formWords(p *i18n.Printer, f Form, words func(Form) (string, bool)) (string, bool) {
	switch {
	case strings.TrimSpace(f.Name) == "":
		return p.T("Type a name for the disk."), false
	case strings.TrimSpace(f.Size) == "":
		return p.T("Type a size: 512M, 4G, 1.5G, or a share of memory like 25%%."), false
	case f.Contents == ramdisk.Mirror && strings.TrimSpace(f.Folder) == "":
		return p.T("Choose the folder to mirror (Folder…)."), false
	}
	return words(f)
}

// trimmed is f as the user meant it: no spaces around the typed fields.
func trimmed(f Form) Form {
	f.Name = strings.TrimSpace(f.Name)
	f.Size = strings.TrimSpace(f.Size)
	f.Folder = strings.TrimSpace(f.Folder)
	return f
}

// Dialogs are RAMBar's dialogs over native Windows: the New RAM Disk form,
// the Quit question, messages, and the preset editor's small windows (the
// methods of tray.PresetDialogs, which Dialogs satisfies).
type Dialogs struct {
	W Windows
	// Lang says the windows' words in the user's language (nil: English).
	Lang *i18n.Printer
}

// alert is d.W.Alert with its cancelling button named in d's language.
func (d Dialogs) alert(ctx context.Context, a Alert) (Answer, error) {
	a.Cancel = d.Lang.T("Cancel")
	return d.W.Alert(ctx, a)
}

// NewDisk shows the form until the user creates a disk the checks accept
// (words ok) or cancels (ramdisk.ErrCancelled). A form refused when Create
// is pressed (the checks saw something new) is shown again with the
// refusal, starting from what was typed.
func (d Dialogs) NewDisk(ctx context.Context, f Form, opt FormOptions, words func(Form) (string, bool)) (Form, error) {
	for {
		opt.Lang = d.Lang
		got, err := d.W.Form(ctx, d.Lang.T("New RAM Disk"), f, opt, func(x Form) (string, bool) { return formWords(d.Lang, trimmed(x), words) })
		if err != nil {
			return Form{}, err
		}
		f = trimmed(got)
		if _, ok := formWords(d.Lang, f, words); ok {
			return f, nil
		}
	}
}

// Buttons shows text with buttons and returns the index of the one pressed;
// cancelled (Esc, ctx) is ramdisk.ErrCancelled.
func (d Dialogs) Buttons(ctx context.Context, title, text string, buttons ...string) (int, error) {
	a, err := d.alert(ctx, Alert{Title: title, Text: text, Buttons: buttons})
	return a.Button, err
}

// Message shows a result until dismissed.
func (d Dialogs) Message(ctx context.Context, title, text string) error {
	_, err := d.alert(ctx, Alert{Title: title, Text: text, Buttons: []string{d.Lang.T("OK")}})
	if isCancelled(err) {
		return nil
	}
	return err
}

// Result shows text in a fixed-pitch font (a benchmark's table) with OK
// and, when action is set, action as a second button, and reports whether
// action was pressed (the tray then opens the chart with `open`).
func (d Dialogs) Result(ctx context.Context, title, text, action string) (bool, error) {
	buttons := []string{d.Lang.T("OK")}
	if action != "" {
		buttons = append(buttons, action)
	}
	a, err := d.alert(ctx, Alert{Title: title, Mono: text, Buttons: buttons})
	if isCancelled(err) {
		return false, nil
	}
	return err == nil && action != "" && a.Button == 1, err
}

// Choose shows items in a popup, def selected, and returns the one picked.
func (d Dialogs) Choose(ctx context.Context, title, text string, items []string, def string) (string, error) {
	if len(items) == 0 {
		return "", fmt.Errorf("choose %q: no items", title)
	}
	pick := 0
	for i, it := range items {
		if it == def {
			pick = i
		}
	}
	a, err := d.alert(ctx, Alert{Title: title, Text: text, Buttons: []string{d.Lang.T("OK"), d.Lang.T("Cancel")}, Choices: items, Choice: pick})
	if err != nil {
		return "", err
	}
	if a.Button != 0 {
		return "", ramdisk.ErrCancelled
	}
	if a.Choice < 0 || a.Choice >= len(items) {
		return def, nil
	}
	return items[a.Choice], nil
}

// Ask asks for a line of text, starting from def.
func (d Dialogs) Ask(ctx context.Context, title, text, def string) (string, error) {
	a, err := d.alert(ctx, Alert{Title: title, Text: text, Buttons: []string{d.Lang.T("OK"), d.Lang.T("Cancel")}, Field: &def})
	if err != nil {
		return "", err
	}
	if a.Button != 0 {
		return "", ramdisk.ErrCancelled
	}
	return a.Text, nil
}

// Folder asks for a folder, starting at def.
func (d Dialogs) Folder(ctx context.Context, title, def string) (string, error) {
	return d.W.ChooseFolder(ctx, title, def)
}

// Confirm asks before something is done; false when the user declines.
func (d Dialogs) Confirm(ctx context.Context, title, text, ok string) (bool, error) {
	a, err := d.alert(ctx, Alert{Title: title, Text: text, Buttons: []string{ok, d.Lang.T("Cancel")}})
	if isCancelled(err) {
		return false, nil
	}
	return err == nil && a.Button == 0, err
}

// Problem shows what was wrong until dismissed.
func (d Dialogs) Problem(ctx context.Context, title, text string) error {
	return d.Message(ctx, title, text)
}

// pressed is the answer an alert with these buttons gives for the button
// at index i (-1: none, the modal loop was aborted): the button titled
// cancel, or none, is ramdisk.ErrCancelled.
func pressed(i int, buttons []string, cancel string) (int, error) {
	switch {
	case i < 0:
		return -1, ramdisk.ErrCancelled
	case i < len(buttons) && buttons[i] == cancel:
		return i, ramdisk.ErrCancelled
	}
	return i, nil
}

// buttonIndex maps an NSModalResponse to the index of the button pressed,
// or -1 (aborted, stopped, unknown).
func buttonIndex(resp int) int {
	if resp >= alertFirstButton && resp < alertFirstButton+100 {
		return resp - alertFirstButton
	}
	return -1
}
func isCancelled(err error) bool { return errors.Is(err, ramdisk.ErrCancelled) }

// modalCount counts the modal loops running on the main thread; they nest
// (a folder panel opened from a form), so one flag set and cleared by each
// would read "none" while the outer one still runs.
type modalCount struct{ n atomic.Int32 }

func (m *modalCount) enter()        { m.n.Add(1) }
func (m *modalCount) leave()        { m.n.Add(-1) }
func (m *modalCount) running() bool { return m.n.Load() > 0 }
