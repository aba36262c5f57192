package tray

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/ncruces/zenity"

	"rambar/i18n"
	"rambar/ramdisk"
)

// formsSep separates the answers zenity --forms prints: a control
// character, which no disk name may hold (ramdisk.ValidateName).
const formsSep = "\x1f"

// formsArgs is the zenity command line of the one New RAM Disk window: name,
// size, file system (when there is a choice) and contents, each left empty
// to keep the default its label names (zenity's forms cannot prefill).
// Return in any field is Create when the window runs in formsUIDir
// (returnCreates: the window says so).
func formsArgs(p *i18n.Printer, form NewDiskForm, fss []ramdisk.FileSystem, returnCreates bool) []string {
	text := p.T("Empty fields keep the default in brackets.")
	if returnCreates {
		text = p.T("Empty fields keep the default in brackets. Return creates.")
	}
	args := []string{"--forms", "--title=" + p.T("New RAM Disk"), "--ok-label=" + p.T("Create"), "--cancel-label=" + p.T("Cancel"),
		"--separator=" + formsSep, "--text=" + text,
		"--add-entry=" + p.T("Name [%s]", form.Name),
		"--add-entry=" + p.T("Size [%s] (512M, 4G, 1.5G, or 25%% of memory)", form.Size)}
	if len(fss) > 1 {
		labels := make([]string, len(fss))
		for i, f := range fss {
			labels[i] = f.Label()
		}
		args = append(args, "--add-combo="+p.T("File system [%s]", form.FS.Label()), "--combo-values="+strings.Join(labels, "|"))
	}
	labels := make([]string, len(ramdisk.ContentChoices))
	for i, c := range ramdisk.ContentChoices {
		labels[i] = p.T(c.Label)
	}
	cur := p.T(ramdisk.ContentChoices[ramdisk.ContentIndex(form.Contents, form.InPlace)].Label)
	return append(args, "--add-combo="+p.T("Contents [%s]", strings.Split(cur, ":")[0]), "--combo-values="+strings.Join(labels, "|"))
}

// parseForms reads zenity's answers onto form: an empty answer keeps the
// default. The answers are zenity's last line (a bus service it starts may
// print before it).
func parseForms(p *i18n.Printer, out string, form NewDiskForm, fss []ramdisk.FileSystem) NewDiskForm {
	lines := strings.Split(strings.TrimRight(out, "\r\n"), "\n")
	fields := strings.Split(lines[len(lines)-1], formsSep)
	next := func() string {
		if len(fields) == 0 {
			return ""
		}
		f := strings.TrimSpace(fields[0])
		fields = fields[1:]
		return f
	}
	if s := next(); s != "" {
		form.Name = s
	}
	if s := next(); s != "" {
		form.Size = s
	}
	if len(fss) > 1 {
		s := next()
		for _, f := range fss {
			if s == f.Label() {
				form.FS = f
			}
		}
	}
	s := next()
	for _, c := range ramdisk.ContentChoices {
		if s == p.T(c.Label) {
			form.Contents, form.InPlace = c.Mode, c.InPlace
		}
	}
	return form
}

// formsNewDisk is Zenity.NewDisk with the zenity tool's forms: one window,
// then a folder chooser only for a mirror, and a second look only when the
// plan warns or is refused. The window runs in uiDir prepared by
// formsUIDir, so Return creates; when that cannot be done, in "/" (no
// stray ./zenity.ui), where Tab to Create then Return does.
func formsNewDisk(ctx context.Context, p *i18n.Printer, tool, uiDir string, form NewDiskForm, fss []ramdisk.FileSystem, check func(NewDiskForm) (ramdisk.Plan, error)) (NewDiskForm, ramdisk.Plan, error) {
	title := zenity.Title(p.T("New RAM Disk"))
	cwd, err := formsUIDir(uiDir, tool)
	if err != nil {
		cwd = "/"
	}
	for {
		cmd := exec.CommandContext(ctx, tool, formsArgs(p, form, fss, err == nil)...)
		cmd.Dir = cwd
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee) && ee.ExitCode() == 1:
			return form, ramdisk.Plan{}, ramdisk.ErrCancelled
		case err != nil:
			return form, ramdisk.Plan{}, fmt.Errorf("zenity --forms: %w: %s", err, strings.TrimSpace(stderr.String()))
		}
		form = parseForms(p, string(out), form, fss)
		if form.Contents == ramdisk.Mirror {
			dir, err := zenity.SelectFile(title, zenity.Directory(), zenity.Filename(form.Folder), zenity.Context(ctx))
			if cancelled(err) {
				continue // back to the form
			} else if err != nil {
				return form, ramdisk.Plan{}, fmt.Errorf("zenity file selection: %w", err)
			}
			form.Folder = dir
		}
		if plan, again, err := reviewPlan(ctx, p, title, form, check, warns); !again {
			return form, plan, err
		}
	}
}

// warns reports whether a plan holds a warning the user must see before the
// disk is made (its memory words are in the menu once it exists).
func warns(p ramdisk.Plan) bool {
	for _, n := range p.Notes {
		if n.Severity == ramdisk.Warning {
			return true
		}
	}
	return false
}
