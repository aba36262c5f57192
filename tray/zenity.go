package tray

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"strings"

	"github.com/ncruces/zenity"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Zenity is Dialogs over github.com/ncruces/zenity: osascript on macOS, the
// zenity tool on Linux; no cgo either way.
type Zenity struct {
	// Dir is a private folder of RAMBar's (made 0700) for what the zenity
	// tool's New RAM Disk window needs to take Return (zenity_return.go);
	// "" leaves the window as zenity makes it (Tab to Create, then Return).
	Dir string
	// Lang says the windows' words in the user's language (nil: English).
	Lang *i18n.Printer
}

var (
	_ Dialogs       = Zenity{}
	_ PresetDialogs = Zenity{}
)

func cancelled(err error) bool { return errors.Is(err, zenity.ErrCanceled) }

// NewDisk implements Dialogs. On Linux it is one zenity forms window (name,
// size, file system, contents; formsNewDisk). Through osascript (macOS
// without the native window) it asks name, size and file system in turn,
// then shows the plan's words (or its refusal) before anything is made.
func (z Zenity) NewDisk(ctx context.Context, form NewDiskForm, fss []ramdisk.FileSystem, check func(NewDiskForm) (ramdisk.Plan, error)) (NewDiskForm, ramdisk.Plan, error) {
	if runtime.GOOS != "darwin" {
		if tool, err := exec.LookPath("zenity"); err == nil {
			return formsNewDisk(ctx, z.Lang, tool, z.Dir, form, fss, check)
		}
	}
	p := z.Lang
	title := zenity.Title(p.T("New RAM Disk"))
	for {
		name, err := zenity.Entry(p.T("Name of the new RAM disk:"), title, zenity.EntryText(form.Name), zenity.Context(ctx))
		if cancelled(err) {
			return form, ramdisk.Plan{}, ramdisk.ErrCancelled
		} else if err != nil {
			return form, ramdisk.Plan{}, fmt.Errorf("zenity entry: %w", err)
		}
		form.Name = strings.TrimSpace(name)
		size, err := zenity.Entry(p.T("Size (512M, 4G, 1.5G, or a share of memory like 25%%):"), title,
			zenity.EntryText(form.Size), zenity.Context(ctx))
		if cancelled(err) {
			return form, ramdisk.Plan{}, ramdisk.ErrCancelled
		} else if err != nil {
			return form, ramdisk.Plan{}, fmt.Errorf("zenity entry: %w", err)
		}
		form.Size = strings.TrimSpace(size)
		if len(fss) > 1 {
			labels := make([]string, len(fss))
			def := fss[0].Label()
			for i, f := range fss {
				labels[i] = f.Label()
				if f == form.FS {
					def = labels[i]
				}
			}
			pick, err := zenity.List(p.T("File system:"), labels, title, zenity.DefaultItems(def), zenity.DisallowEmpty(), zenity.Context(ctx))
			if cancelled(err) {
				return form, ramdisk.Plan{}, ramdisk.ErrCancelled
			} else if err != nil {
				return form, ramdisk.Plan{}, fmt.Errorf("zenity list: %w", err)
			}
			for i, l := range labels {
				if l == pick {
					form.FS = fss[i]
				}
			}
		}
		if plan, again, err := reviewPlan(ctx, p, title, form, check, func(ramdisk.Plan) bool { return true }); !again {
			return form, plan, err
		}
	}
}

// reviewPlan plans the answers: a refusal is shown and the user changes
// them (again); a plan that ask wants shown is shown with Create, Cancel
// and Change… (again).
func reviewPlan(ctx context.Context, p *i18n.Printer, title zenity.Option, form NewDiskForm, check func(NewDiskForm) (ramdisk.Plan, error),
	ask func(ramdisk.Plan) bool) (plan ramdisk.Plan, again bool, err error) {
	plan, err = check(form)
	if err != nil {
		// Refused: say why, then let the user change the answers.
		if e := zenity.Error(planRefusal(p, err), title, zenity.OKLabel(p.T("Change")), zenity.Context(ctx)); cancelled(e) {
			return ramdisk.Plan{}, false, ramdisk.ErrCancelled
		}
		return ramdisk.Plan{}, true, nil
	}
	if !ask(plan) {
		return plan, false, nil
	}
	err = zenity.Question(planText(p, plan), title, zenity.OKLabel(p.T("Create")), zenity.CancelLabel(p.T("Cancel")),
		zenity.ExtraButton(p.T("Change…")), zenity.Context(ctx))
	switch {
	case err == nil:
		return plan, false, nil
	case errors.Is(err, zenity.ErrExtraButton):
		return ramdisk.Plan{}, true, nil
	case cancelled(err):
		return ramdisk.Plan{}, false, ramdisk.ErrCancelled
	}
	return ramdisk.Plan{}, false, fmt.Errorf("zenity question: %w", err)
}

// PlanText is what the dialog shows before a disk is made: the summary and
// every note (memory committed now or as written, advice, warnings).
func PlanText(p ramdisk.Plan) string { return planText(nil, p) }

// PlanTextIn is PlanText in lang's words.
func PlanTextIn(lang *i18n.Printer, p ramdisk.Plan) string { return planText(lang, p) }

// PlanRefusalIn is PlanRefusal in lang's words.
func PlanRefusalIn(lang *i18n.Printer, err error) string { return planRefusal(lang, err) }

// planText is PlanText in the user's language: its summary and notes as
// the CLI says them (PlanSummary, NoteText).
func planText(lang *i18n.Printer, p ramdisk.Plan) string {
	var b strings.Builder
	b.WriteString(lang.T("Create %s?", PlanSummary(lang, p)) + "\n")
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "\n• %s", NoteText(lang, n))
	}
	return b.String()
}

// PlanRefusal words a refused plan for the dialog.
func PlanRefusal(err error) string { return planRefusal(nil, err) }

func planRefusal(p *i18n.Printer, err error) string {
	msg := p.Err(err)
	if errors.Is(err, ramdisk.ErrTooLarge) {
		msg = strings.TrimSuffix(msg, "; use --force to make it anyway")
		return p.T("This machine can't hold that disk: %s.\n\nChoose a smaller size.", msg)
	}
	return p.T("Can't make that disk: %s", msg)
}

// Quit implements Dialogs.
func (z Zenity) Quit(ctx context.Context, q QuitQuestion) (QuitChoice, error) {
	p := z.Lang
	err := zenity.Question(QuitText(p, q),
		zenity.Title(p.T("Quit RAMBar")), zenity.OKLabel(p.T("Eject and Quit")), zenity.ExtraButton(p.T("Leave Mounted")),
		zenity.CancelLabel(p.T("Cancel")), zenity.Context(ctx))
	switch {
	case err == nil:
		return QuitEjectAll, nil
	case errors.Is(err, zenity.ErrExtraButton):
		return QuitLeaveMounted, nil
	case cancelled(err):
		return QuitCancel, nil
	}
	return QuitCancel, fmt.Errorf("zenity question: %w", err)
}

// Message implements Dialogs.
func (Zenity) Message(ctx context.Context, title, text string) error {
	err := zenity.Info(text, zenity.Title(title), zenity.Context(ctx))
	if err != nil && !cancelled(err) {
		return fmt.Errorf("zenity info: %w", err)
	}
	return nil
}

// Choose implements PresetDialogs with a list. The zenity tool (Linux) can
// neither preselect def nor refuse an empty pick, so there the text names
// def, and OK with nothing picked keeps it.
func (z Zenity) Choose(ctx context.Context, title, text string, items []string, def string) (string, error) {
	opts := []zenity.Option{zenity.Title(title), zenity.DisallowEmpty(), zenity.Context(ctx)}
	if def != "" {
		opts = append(opts, zenity.DefaultItems(def))
		if runtime.GOOS != "darwin" {
			text += "\n" + z.Lang.T("Now: %s", def)
		}
	}
	pick, err := zenity.List(text, items, opts...)
	if err == nil && pick == "" {
		pick = def
	}
	return pick, answer("zenity list", err)
}

// Ask implements PresetDialogs with an entry.
func (Zenity) Ask(ctx context.Context, title, text, def string) (string, error) {
	s, err := zenity.Entry(text, zenity.Title(title), zenity.EntryText(def), zenity.Context(ctx))
	return s, answer("zenity entry", err)
}

// Folder implements PresetDialogs with a folder chooser.
func (Zenity) Folder(ctx context.Context, title, def string) (string, error) {
	opts := []zenity.Option{zenity.Title(title), zenity.Directory(), zenity.Context(ctx)}
	if def != "" {
		opts = append(opts, zenity.Filename(def))
	}
	dir, err := zenity.SelectFile(opts...)
	return dir, answer("zenity file selection", err)
}

// Confirm implements PresetDialogs with a question.
func (z Zenity) Confirm(ctx context.Context, title, text, ok string) (bool, error) {
	err := zenity.Question(text, zenity.Title(title), zenity.OKLabel(ok), zenity.CancelLabel(z.Lang.T("Cancel")), zenity.Context(ctx))
	if cancelled(err) {
		return false, nil
	}
	return err == nil, answer("zenity question", err)
}

// Problem implements PresetDialogs with an error window.
func (Zenity) Problem(ctx context.Context, title, text string) error {
	return answer("zenity error", zenity.Error(text, zenity.Title(title), zenity.Context(ctx)))
}

// answer maps a dialog's cancel to ramdisk.ErrCancelled and wraps any other
// failure with the dialog's name.
func answer(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case cancelled(err):
		return ramdisk.ErrCancelled
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Notify shows a notification with zenity (osascript `display notification`
// on macOS, `zenity --notification` on Linux), giving up after ctx ends.
func Notify(ctx context.Context, title, text string) error {
	if err := zenity.Notify(text, zenity.Title(title), zenity.Context(ctx)); err != nil {
		return fmt.Errorf("zenity notify: %w", err)
	}
	return nil
}

// DialogsAvailable reports whether Zenity can open windows here (osascript
// on macOS; the zenity tool on Linux).
func DialogsAvailable() bool { return zenity.IsAvailable() }
