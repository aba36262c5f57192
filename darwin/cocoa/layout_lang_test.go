package cocoa

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rambar/i18n"
	"rambar/ramdisk"
)

// TestFormLayoutInEveryLanguage: in each language RAMBar speaks, and in the
// pseudo-locale (accented, 40% longer), the New RAM Disk window's labels
// and Folder… button get the width their words need, the controls keep at
// least minControl, and nothing leaves the window or overlaps: a longer
// language widens the window, it cuts nothing.
func TestFormLayoutInEveryLanguage(t *testing.T) {
	two := []ramdisk.FileSystem{"apfs", "hfs+"}
	for _, tag := range append(i18n.Languages, i18n.Pseudo) {
		p := i18n.For(tag)
		opt := FormOptions{FileSystems: two, Contents: true, Lang: p}
		l := layoutForm(opt)
		var all []rect
		for _, r := range l.rows {
			label := opt.label(r.kind)
			if tag == i18n.Pseudo && !strings.HasSuffix(label, i18n.PseudoClose) {
				t.Errorf("pseudo: row %v's label %q skipped the catalog", r.kind, label)
			}
			if r.label.W < textWidth(label) {
				t.Errorf("%s: label %q needs %.0f pt, has %.0f", tag, label, textWidth(label), r.label.W)
			}
			if r.kind != rowFolder && r.control.W < minControl {
				t.Errorf("%s: row %v's control is %.0f pt wide", tag, r.kind, r.control.W)
			}
			parts := []rect{r.label, r.control}
			if r.kind == rowFolder {
				parts = append(parts, r.button)
				if b := p.T("Folder…"); r.button.W < textWidth(b)+16 {
					t.Errorf("%s: the button %q needs %.0f pt, has %.0f", tag, b, textWidth(b)+16, r.button.W)
				}
			}
			for _, q := range parts {
				if !inside(l.view, q) {
					t.Errorf("%s: row %v: %+v is outside the view %+v", tag, r.kind, q, l.view)
				}
			}
			all = append(all, parts...)
		}
		for i := range all {
			for j := i + 1; j < len(all); j++ {
				if overlap(all[i], all[j]) {
					t.Errorf("%s: %+v overlaps %+v", tag, all[i], all[j])
				}
			}
		}
	}
	if en, ps := layoutForm(FormOptions{Contents: true}), layoutForm(FormOptions{Contents: true, Lang: i18n.For(i18n.Pseudo)}); ps.view.W <= en.view.W {
		t.Errorf("the pseudo-locale's window is %.0f pt wide, English's %.0f", ps.view.W, en.view.W)
	}
}

// TestDialogsInThePseudoLocale: every window of the fake Mac says its
// words through the catalog (the pseudo-locale marks them), and its Cancel
// cancels whatever the language calls it.
func TestDialogsInThePseudoLocale(t *testing.T) {
	p := i18n.For(i18n.Pseudo)
	w := &FakeWindows{Answers: []Answer{{Button: 1}}}
	d := Dialogs{W: w, Lang: p}
	if _, err := d.Ask(context.Background(), p.T("Presets"), p.T("Name of the disk:"), "Scratch"); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("the pseudo Cancel did not cancel: %v", err)
	}
	a := w.Alerts[0]
	for _, b := range a.Buttons {
		if !strings.HasPrefix(b, i18n.PseudoOpen) || !strings.HasSuffix(b, i18n.PseudoClose) {
			t.Errorf("button %q skipped the catalog", b)
		}
	}
	var shown []string
	n := 0
	w.Fill = func(f Form) Form { // the name cleared once, then typed
		n++
		f.Name = map[bool]string{true: "", false: "Scratch"}[n == 1]
		return f
	}
	words := func(Form) (string, bool) { return "ok", true }
	w.Answers = nil
	_, _ = d.NewDisk(context.Background(), Form{Name: "x", Size: "1G"}, FormOptions{Contents: true}, func(f Form) (string, bool) {
		return words(f)
	})
	shown = append(shown, w.Words...)
	if len(w.Options) == 0 || w.Options[0].Lang != p {
		t.Fatalf("the form was not given the language")
	}
	found := false
	for _, s := range shown {
		if strings.HasSuffix(s, i18n.PseudoClose) {
			found = true
		}
	}
	if !found {
		t.Errorf("the form's own words skipped the catalog: %q", shown)
	}
}
