package tray

import (
	"context"
	"errors"
	"fmt"
	"rambar/i18n"
	"rambar/settingsfile"
	"strings"
	"time"

	"rambar/ramdisk"
)

// PresetDialogs are the small windows the preset editor is made of. Each
// call blocks until the user answers; a cancelled window returns an error
// wrapping ramdisk.ErrCancelled.
type PresetDialogs interface {
	// Choose shows items and returns the one picked, def selected at first.
	Choose(ctx context.Context, title, text string, items []string, def string) (string, error)
	// Ask asks for a line of text, starting from def.
	Ask(ctx context.Context, title, text, def string) (string, error)
	// Folder asks for a folder, starting at def.
	Folder(ctx context.Context, title, def string) (string, error)
	// Confirm asks before something is done; false when the user declines.
	Confirm(ctx context.Context, title, text, ok string) (bool, error)
	// Problem shows what was wrong until dismissed.
	Problem(ctx context.Context, title, text string) error
}

// The words of the preset editor's choices.
const (
	choiceAdd    = "Add Preset…"
	choiceEdit   = "Edit…"
	choiceRemove = "Remove…"
	choiceMount  = "Mount Now"

	choiceShown  = "Shown in Finder and on the desktop"
	choiceHidden = "Hidden"

	choiceMenuOnly  = "Only when chosen in the menu"
	choiceAutoMount = "Also when RAMBar starts (at login)"

	choiceDiscard = "None: contents are lost when ejected"
	choiceKeep    = "Keep contents: saved, and restored when mounted"
	choiceMirror  = "Mirror a folder: loaded when mounted, changes written back"
	choiceInPlace = "Mirror in place: the folder runs from memory at its own path"

	choiceDefault = "Default"
)

// saveIntervals are the autosave choices, in seconds (0 = off).
var saveIntervals = []int{0, 300, 600, 1800, 3600}

// snapshotCounts are the snapshot choices (0 = the default).
var snapshotCounts = []int{0, 1, 3, 5, 10}

// presetEditor adds, edits and removes presets through dialogs. Every change
// is one Store.Update, so nothing is written unless it validates, and a
// corrupt or newer settings file is never touched.
type presetEditor struct {
	store    settingsfile.Store
	dlg      PresetDialogs
	fss      []ramdisk.FileSystem
	physical ramdisk.Size
	// saved is told the settings after every successful change.
	saved func(ramdisk.Settings)
	// lang says the editor's words (nil: English).
	lang *i18n.Printer
}

// t says a message in the editor's language.
func (e presetEditor) t(format string, args ...any) string { return e.lang.T(format, args...) }

// refused is an answer the settings would not take; it is shown and the
// form asked again, starting from what was typed.
type refused struct{ error }

// presetLine describes a preset in one line: "Scratch: 4G APFS, kept, at login".
func presetLine(lang *i18n.Printer, p ramdisk.Preset) string {
	parts := []string{p.Size}
	if p.FS != "" {
		parts[0] += " " + p.FS.Label()
	}
	if p.Contents != ramdisk.Discard {
		parts = append(parts, PresetContents(lang, p))
	}
	if p.Hidden {
		parts = append(parts, lang.T("hidden"))
	}
	if p.AutoMount {
		parts = append(parts, lang.T("at login"))
	}
	return lang.T("%s: %s", p.Name, strings.Join(parts, ListSep(lang)))
}

// run is "Edit Presets…": pick a preset (or Add Preset…), then edit, remove
// or mount it. It returns the name of a preset to mount now, or "".
func (e presetEditor) run(ctx context.Context) (string, error) {
	s, err := e.store.Load()
	if err != nil {
		return "", err
	}
	items := make([]string, 0, len(s.Presets)+1)
	for _, p := range s.Presets {
		items = append(items, presetLine(e.lang, p))
	}
	items = append(items, e.t(choiceAdd))
	pick, err := e.dlg.Choose(ctx, e.t("RAM Disk Presets"), e.t("Choose a preset to change, or add one:"), items, "")
	if err != nil {
		return "", err
	}
	i := indexOf(items, pick)
	if i < 0 {
		return "", nil
	}
	if i == len(s.Presets) {
		return "", e.add(ctx, e.t("New Preset"), ramdisk.Preset{Size: "4G", FS: defaultFSOf(e.fss)})
	}
	p := s.Presets[i]
	what, err := e.dlg.Choose(ctx, p.Name, presetLine(e.lang, p), []string{e.t(choiceEdit), e.t(choiceRemove), e.t(choiceMount)}, e.t(choiceEdit))
	if err != nil {
		return "", err
	}
	switch what {
	case e.t(choiceEdit):
		return "", e.edit(ctx, p)
	case e.t(choiceRemove):
		ok, err := e.dlg.Confirm(ctx, e.t("Remove %s", p.Name), e.t("Remove the preset %s? A disk it made stays mounted, and no folder is touched.", p.Name), e.t("Remove"))
		if err != nil || !ok {
			return "", err
		}
		_, err = e.update(func(s *ramdisk.Settings) error {
			_, err := s.RemovePreset(p.Name)
			return err
		})
		return "", err
	case e.t(choiceMount):
		return p.Name, nil
	}
	return "", nil
}

// saveAs is "Save as Preset…" on a disk: a new preset prefilled from it.
func (e presetEditor) saveAs(ctx context.Context, v ramdisk.Volume) error {
	s, err := e.store.Load()
	if err != nil {
		return err
	}
	names := make([]string, len(s.Presets))
	for i, p := range s.Presets {
		names[i] = p.Name
	}
	p := ramdisk.Preset{Name: firstFreeName(v.Name, names), Size: v.Size.String(), FS: v.FS, Hidden: v.Hidden}
	return e.add(ctx, e.t("Save %s as Preset", v.Name), p)
}

func (e presetEditor) add(ctx context.Context, title string, p ramdisk.Preset) error {
	return e.formLoop(ctx, title, p, func(s *ramdisk.Settings, q ramdisk.Preset) error {
		return s.AddPreset(q, e.physical)
	})
}

// edit changes p, its name too; it keeps its place in the list.
func (e presetEditor) edit(ctx context.Context, p ramdisk.Preset) error {
	return e.formLoop(ctx, e.t("Edit %s", p.Name), p, func(s *ramdisk.Settings, q ramdisk.Preset) error {
		i := -1
		for j := range s.Presets {
			if strings.EqualFold(s.Presets[j].Name, p.Name) {
				i = j
			}
		}
		if _, err := s.RemovePreset(p.Name); err != nil {
			return err
		}
		if err := s.AddPreset(q, e.physical); err != nil {
			return err
		}
		last := len(s.Presets) - 1
		moved := s.Presets[last]
		copy(s.Presets[i+1:], s.Presets[i:last])
		s.Presets[i] = moved
		return nil
	})
}

// formLoop asks the form until change takes the answers, showing why each
// refused answer was refused. A cancel at any step changes nothing.
func (e presetEditor) formLoop(ctx context.Context, title string, p ramdisk.Preset, change func(*ramdisk.Settings, ramdisk.Preset) error) error {
	for {
		var err error
		if p, err = e.form(ctx, title, p); err != nil {
			return err
		}
		q := p
		_, err = e.update(func(s *ramdisk.Settings) error { return change(s, q) })
		var r refused
		if !errors.As(err, &r) {
			return err
		}
		if err := e.dlg.Problem(ctx, title, e.t("Not saved: %s", e.lang.Err(r))); err != nil {
			return err
		}
	}
}

// update is one Store.Update; an error of fn (the answers) comes back as
// refused, any other (the file) as it is.
func (e presetEditor) update(fn func(*ramdisk.Settings) error) (ramdisk.Settings, error) {
	s, err := e.store.Update(e.physical, func(s *ramdisk.Settings) error {
		if err := fn(s); err != nil {
			return refused{err}
		}
		return nil
	})
	if err == nil && e.saved != nil {
		e.saved(s)
	}
	return s, err
}

// form asks for every field in turn, starting from p. A bad name or size is
// shown and asked again at once.
func (e presetEditor) form(ctx context.Context, title string, p ramdisk.Preset) (ramdisk.Preset, error) {
	var err error
	for {
		if p.Name, err = e.ask(ctx, title, e.t("Name of the disk:"), p.Name); err != nil {
			return p, err
		}
		if err = ramdisk.ValidateName(p.Name); err == nil {
			break
		}
		if err = e.dlg.Problem(ctx, title, e.lang.Err(err)); err != nil {
			return p, err
		}
	}
	for {
		if p.Size, err = e.ask(ctx, title, e.t("Size (512M, 4G, 1.5G, or a share of memory like 25%%):"), p.Size); err != nil {
			return p, err
		}
		if _, err = ramdisk.ParseSize(p.Size, e.physical); err == nil {
			break
		}
		if err = e.dlg.Problem(ctx, title, e.lang.Err(err)); err != nil {
			return p, err
		}
	}
	if len(e.fss) > 1 {
		labels := make([]string, len(e.fss))
		def := ""
		for i, f := range e.fss {
			labels[i] = f.Label()
			if f == p.FS {
				def = labels[i]
			}
		}
		pick, err := e.dlg.Choose(ctx, title, e.t("File system:"), labels, def)
		if err != nil {
			return p, err
		}
		if i := indexOf(labels, pick); i >= 0 {
			p.FS = e.fss[i]
		}
	}
	if p.Hidden, err = e.either(ctx, title, e.t("Show the disk?"), e.t(choiceShown), e.t(choiceHidden), p.Hidden); err != nil {
		return p, err
	}
	if p.AutoMount, err = e.either(ctx, title, e.t("When to mount it:"), e.t(choiceMenuOnly), e.t(choiceAutoMount), p.AutoMount); err != nil {
		return p, err
	}
	modes := []ramdisk.ContentMode{ramdisk.Discard, ramdisk.Keep, ramdisk.Mirror, ramdisk.Mirror}
	labels := []string{e.t(choiceDiscard), e.t(choiceKeep), e.t(choiceMirror), e.t(choiceInPlace)}
	def := e.t(choiceDiscard)
	if i := indexOf(modes, p.Contents); i >= 0 {
		def = labels[i]
	}
	if p.Contents == ramdisk.Mirror && p.InPlace {
		def = e.t(choiceInPlace)
	}
	pick, err := e.dlg.Choose(ctx, title, e.t("Its contents:"), labels, def)
	if err != nil {
		return p, err
	}
	if i := indexOf(labels, pick); i >= 0 {
		p.Contents, p.InPlace = modes[i], pick == e.t(choiceInPlace)
	}
	if p.Contents != ramdisk.Mirror {
		p.MirrorPath = ""
	} else if p.MirrorPath, err = e.dlg.Folder(ctx, e.t("Folder to mirror on %s", p.Name), p.MirrorPath); err != nil {
		return p, err
	}
	if p.Contents == ramdisk.Discard {
		p.SaveEvery, p.Snapshots = 0, 0
		return p, nil
	}
	if p.SaveEvery, err = e.number(ctx, title, e.t("Save the contents every:"), saveIntervals, p.SaveEvery, func(secs int) string { return intervalLabel(e.lang, secs) }); err != nil {
		return p, err
	}
	p.Snapshots, err = e.number(ctx, title, e.t("Past saves to keep as snapshots:"), snapshotCounts, p.Snapshots, func(n int) string {
		if n == 0 {
			return e.t(choiceDefault)
		}
		return fmt.Sprint(n)
	})
	return p, err
}

func (e presetEditor) ask(ctx context.Context, title, text, def string) (string, error) {
	s, err := e.dlg.Ask(ctx, title, text, def)
	return strings.TrimSpace(s), err
}

// either asks a yes-or-no question as a choice of two, so cancel stays cancel.
func (e presetEditor) either(ctx context.Context, title, text, no, yes string, cur bool) (bool, error) {
	def := no
	if cur {
		def = yes
	}
	switch pick, err := e.dlg.Choose(ctx, title, text, []string{no, yes}, def); {
	case err != nil:
		return cur, err
	case pick == yes:
		return true, nil
	case pick == no:
		return false, nil
	}
	return cur, nil
}

// number picks one of values (the current one is offered too).
func (e presetEditor) number(ctx context.Context, title, text string, values []int, cur int, label func(int) string) (int, error) {
	if indexOf(values, cur) < 0 {
		values = append(append([]int{}, values...), cur)
	}
	labels := make([]string, len(values))
	for i, v := range values {
		labels[i] = label(v)
	}
	pick, err := e.dlg.Choose(ctx, title, text, labels, label(cur))
	if err != nil {
		return cur, err
	}
	if i := indexOf(labels, pick); i >= 0 {
		return values[i], nil
	}
	return cur, nil
}

// intervalLabel is "Off", "5 min", "1 h", "1 h 30 min".
func intervalLabel(lang *i18n.Printer, secs int) string {
	if secs == 0 {
		return lang.T("Off")
	}
	return ramdisk.ShortDuration(time.Duration(secs) * time.Second)
}

func defaultFSOf(fss []ramdisk.FileSystem) ramdisk.FileSystem {
	return defaultFS(ramdisk.Caps{FileSystems: fss})
}

func indexOf[T comparable](xs []T, x T) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}
