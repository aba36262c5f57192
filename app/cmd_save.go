package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "save", Summary: i18n.N("save kept and mirrored disks now"),
		Doc:  i18n.N("Name the disks, or give --all. Each save is a new snapshot; unchanged files are shared with the last one."),
		Args: []arg{{Name: "NAME", Optional: true, Repeat: true}}, Usage: "NAME... | --all",
		Flags: []flagSpec{
			flagBool("all", i18n.N("save every kept or mirrored disk")),
			flagBool("force", i18n.N("save even an empty, unmounted or different disk over the saved copy")),
		},
		JSON: true, Example: "save Work\nsave --all", Order: 40, Run: runSave})
}

// keeper is the contents keeper of this App's data folder.
func (a *App) keeper() (*keeper.Keeper, error) { return a.files().Keeper() }

// files is the use-case layer without an engine: what it knows from
// RAMBar's files alone (kept contents, restores that did not finish).
func (a *App) files() *disks.Service {
	s := &disks.Service{Paths: a.Paths, NewKeeper: a.NewKeeper, Warn: a.warn}
	if a.Compress {
		s.CopyFile = compressedCopy()
	}
	return s
}

// setCompress takes create's and restore's --compress: restored files are
// written compressed (macOS only).
func (a *App) setCompress(on bool) error {
	if on && compressedCopy() == nil {
		return i18n.Errorf("--compress: %w: it writes files with ditto --hfsCompression, which only macOS has (on Linux, make a compressed disk with --fs zram)", ramdisk.ErrUnsupported)
	}
	a.Compress = on
	return nil
}

// refusedError is a mirror refusal seen by the CLI: exit code 6.
type refusedError struct{ error }

func (e refusedError) Is(target error) bool { return target == errRefused }
func (e refusedError) Unwrap() error        { return e.error }

// notFoundError is a miss the keeper reports (no such snapshot): exit 4.
type notFoundError struct{ error }

func (e notFoundError) Is(target error) bool { return target == ramdisk.ErrNotFound }
func (e notFoundError) Unwrap() error        { return e.error }

// contentsErr maps the keeper's errors onto the CLI's exit codes.
func contentsErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keeper.ErrRefused):
		return refusedError{err}
	case errors.Is(err, keeper.ErrNoSnapshot):
		return notFoundError{err}
	case errors.Is(err, keeper.ErrNotKept):
		// A disk named that is not kept: a bad argument (exit 2), as the
		// README's table has it.
		return usagef("%v; 'rambar keep NAME' keeps a mounted disk from now on, as 'rambar create NAME SIZE --keep' (or --mirror FOLDER) makes one", err)
	}
	return err
}

func runSave(ctx context.Context, a *App, in *input) error {
	all, force, asJSON, pos := in.Bool("all"), in.Bool("force"), in.Bool("json"), in.Args
	ctx, stop := interruptible(ctx)
	defer stop()
	if *all == (len(pos) > 0) {
		return in.usageErr(msg("name the disks, or give --all"))
	}
	k, err := a.keeper()
	if err != nil {
		return err
	}
	svc, err := a.service()
	if err != nil {
		return err
	}
	var vs []ramdisk.Volume
	if *all {
		if vs, err = svc.Kept(ctx); err != nil {
			return err
		}
	} else {
		if vs, err = a.findSettling(ctx, svc, pos); err != nil {
			return err
		}
		if len(vs) == 0 {
			return nil // what was left of them was settled, and said so
		}
		for _, v := range vs {
			if _, err := k.State(v.Name); err != nil {
				return contentsErr(err)
			}
		}
	}
	// A failed save has its name and error only.
	type saved struct {
		Name string `json:"name"`
		*resultJSON
		Error string `json:"error,omitempty"`
	}
	out := []saved{}
	var errs []error
	for _, v := range vs {
		fn, done := a.contentsProgress(*asJSON)
		r, err := svc.Save(ctx, v, disks.SaveOptions{Force: *force, Progress: fn})
		done()
		s := saved{Name: v.Name}
		err = saveHint(v.Name, err)
		if err != nil {
			s.Error = err.Error()
			errs = append(errs, contentsErr(err))
		} else if rj := toResultJSON(r); *asJSON {
			s.resultJSON = &rj
		} else {
			fmt.Fprintln(a.Stdout, describeSave(a.say(), v.Name, r))
		}
		out = append(out, s)
	}
	if *asJSON {
		if err := writeJSON(a.Stdout, struct {
			Version int     `json:"version"`
			Saved   []saved `json:"saved"`
		}{jsonVersion, out}); err != nil {
			return err
		}
	} else if len(vs) == 0 {
		fmt.Fprintln(a.Stdout, a.say().T("No kept or mirrored disks mounted."))
	}
	return interrupted(ctx, errors.Join(errs...))
}

// saveHint adds to a failed save what `save` can do about it: --force over
// a refusal of an empty or foreign disk, making a mirror folder that is gone.
func saveHint(name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keeper.ErrFolderMissing):
		return i18n.Errorf("%w; make the folder again to have the disk written back into it", err)
	case errors.Is(err, keeper.ErrRefused) && !errors.Is(err, keeper.ErrIncomplete):
		return i18n.Errorf("%w; 'rambar save %s --force' saves it anyway", err, quoteName(name))
	}
	return err
}

// describeSave says what a save did, in s's language.
func describeSave(s speech, name string, r keeper.Result) string {
	if r.Unchanged && r.InUse != nil {
		return s.T("Not saved %s: it never held still during the save, so %s still holds its last saved state; "+
			"save again once it is idle", name, r.Snapshot) + describeInUse(s, r.InUse)
	}
	if r.Unchanged {
		return s.T("Saved %s: nothing changed since %s", name, r.Snapshot) + describeRemarked(s, name, r)
	}
	out := s.T("Saved %s as %s: %d files (%s), %d copied (%s), %d removed, in %s", name, r.Snapshot,
		r.Files, s.Size(ramdisk.Size(r.Bytes)), r.CopiedFiles, s.Size(ramdisk.Size(r.CopiedBytes)), r.Removed,
		s.Number(ramdisk.ShortDuration(r.Took)))
	if r.InUse != nil {
		out += "\n" + s.T("Taken while in use: the disk never held still during the save; each file is a version that existed, "+
			"but together they may not be one moment's state (the next save made while it is idle is)") + describeInUse(s, r.InUse)
	}
	return out + describeNotKept(s, r.NotKept) + describeWriteBack(s, r.Folder) + describeRemarked(s, name, r)
}

// describeRemarked tells that the disk's mark was gone and was put back.
func describeRemarked(s speech, name string, r keeper.Result) string {
	if !r.Remarked {
		return ""
	}
	return "\n  " + s.T("%s's RAMBar mark (an attribute of its top folder) was removed and has been put back; RAMBar's own record knew the disk", name)
}

// describeInUse names the paths that kept changing during a save.
func describeInUse(s speech, u *keeper.InUse) string {
	var b strings.Builder
	b.WriteString("\n  " + s.T("%d paths changed during the save:", u.Count))
	for i, p := range u.Paths {
		if i == 10 {
			b.WriteString("\n  " + s.T("and %d more", u.Count-10))
			break
		}
		b.WriteString("\n  " + s.T("changing: %s", p))
	}
	return b.String()
}

// describeNotKept names what a save could not keep (sockets, device nodes):
// nothing is dropped silently.
func describeNotKept(s speech, nk []keeper.NotKept) string {
	var b strings.Builder
	for _, n := range nk {
		b.WriteString("\n  " + s.T("not kept: %s (%s)", n.Path, n.Why))
	}
	return b.String()
}

// describeWriteBack lists what a Mirror write-back kept of the folder's own
// changes: one line per conflict, per path deleted outside, per metadata
// not kept.
func describeWriteBack(s speech, wb *keeper.WriteBack) string {
	if wb == nil {
		return ""
	}
	var b strings.Builder
	if n := len(wb.Conflicts); n > 0 {
		b.WriteString("\n" + s.T("%d conflicts in %s (both versions kept):", n, wb.Folder))
		for _, c := range wb.Conflicts {
			b.WriteString("\n  " + c.String())
		}
	}
	if wb.KeptOutside > 0 {
		b.WriteString("\n" + s.T("Kept %d changes made in %s outside RAMBar", wb.KeptOutside, wb.Folder))
	}
	for _, p := range wb.DeletedOutside {
		b.WriteString("\n  " + s.T("deleted in the folder, kept deleted (the disk still has it): %s", p))
	}
	for _, p := range wb.NotKept {
		b.WriteString("\n  " + s.T("not kept: %s", p))
	}
	if wb.Postponed > 0 {
		b.WriteString("\n" + s.T("%d deletions in %s wait for a save of the disk at rest (it changed while it was saved); "+
			"the folder keeps them meanwhile", wb.Postponed, wb.Folder))
	}
	return b.String()
}
