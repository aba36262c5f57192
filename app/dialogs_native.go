package main

import (
	"context"
	"errors"

	"rambar/darwin/cocoa"
	"rambar/ramdisk"
	"rambar/tray"
)

// nativeDialogs are the tray's dialogs over darwin/cocoa's native windows
// (one New RAM Disk window with the plan's words live, the app activated
// first); the preset editor's windows come from cocoa.Dialogs as they are.
// It has no build tag: Linux tests run it over cocoa.FakeWindows.
type nativeDialogs struct{ cocoa.Dialogs }

var (
	_ tray.Dialogs       = nativeDialogs{}
	_ tray.PresetDialogs = nativeDialogs{}
)

// NewDisk implements tray.Dialogs: the plan's words (or the refusal) from
// check are shown while the user types, and the plan confirmed is check's.
func (d nativeDialogs) NewDisk(ctx context.Context, form tray.NewDiskForm, fss []ramdisk.FileSystem, check func(tray.NewDiskForm) (ramdisk.Plan, error)) (tray.NewDiskForm, ramdisk.Plan, error) {
	toTray := func(f cocoa.Form) tray.NewDiskForm {
		return tray.NewDiskForm{Name: f.Name, Size: f.Size, FS: f.FS, Contents: f.Contents, Folder: f.Folder, InPlace: f.InPlace}
	}
	words := func(f cocoa.Form) (string, bool) {
		p, err := check(toTray(f))
		if err != nil {
			return tray.PlanRefusalIn(d.Lang, err), false
		}
		return tray.PlanTextIn(d.Lang, p), true
	}
	f, err := d.Dialogs.NewDisk(ctx, cocoa.Form{Name: form.Name, Size: form.Size, FS: form.FS, Contents: form.Contents, Folder: form.Folder, InPlace: form.InPlace},
		cocoa.FormOptions{FileSystems: fss, Contents: true}, words)
	if err != nil {
		return form, ramdisk.Plan{}, err
	}
	answers := toTray(f)
	plan, err := check(answers)
	return answers, plan, err
}

// Quit implements tray.Dialogs.
func (d nativeDialogs) Quit(ctx context.Context, q tray.QuitQuestion) (tray.QuitChoice, error) {
	p := d.Lang
	i, err := d.Buttons(ctx, p.T("Quit RAMBar"), tray.QuitText(p, q),
		p.T("Eject and Quit"), p.T("Leave Mounted"), p.T("Cancel"))
	switch {
	case errors.Is(err, ramdisk.ErrCancelled):
		return tray.QuitCancel, nil
	case err != nil:
		return tray.QuitCancel, err
	case i == 0:
		return tray.QuitEjectAll, nil
	case i == 1:
		return tray.QuitLeaveMounted, nil
	}
	return tray.QuitCancel, nil
}
