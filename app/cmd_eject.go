package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "eject", Summary: i18n.N("eject RAM disks and free their memory (kept and mirrored disks are saved first)"),
		Doc: i18n.N("Name the disks, or give --all. A busy disk names the processes that hold it. " +
			"A disk another RAMBar made (another user's, or another data folder's) is refused and named; --force ejects it unsaved."),
		Args: []arg{{Name: "NAME", Optional: true, Repeat: true}}, Usage: "NAME... | --all",
		Flags: []flagSpec{
			flagBool("all", i18n.N("eject every RAM disk this RAMBar made (others are listed and left alone)")),
			flagBool("force", i18n.N("eject even if files are open on it, or it is another RAMBar's disk (unsaved)")),
			flagBool("no-save", i18n.N("do not save kept or mirrored disks first: their unsaved changes are lost")),
		},
		Example: "eject Scratch\neject --all", Order: 30, Run: runEject})
}

func runEject(ctx context.Context, a *App, in *input) error {
	all, force, noSave, pos := in.Bool("all"), in.Bool("force"), in.Bool("no-save"), in.Args
	ctx, stop := interruptible(ctx)
	defer stop()
	if *all == (len(pos) > 0) {
		return in.usageErr(msg("name the disks, or give --all"))
	}
	svc, err := a.service()
	if err != nil {
		return err
	}
	var vs []ramdisk.Volume
	if *all {
		if vs, err = svc.Engine.List(ctx); err != nil {
			return err
		}
		if len(vs) == 0 {
			fmt.Fprintln(a.Stdout, a.say().T("No RAM disks mounted."))
			return nil
		}
		var others []disks.Foreign
		vs, others = svc.Split(vs)
		say := a.say()
		for _, o := range others {
			fmt.Fprintln(a.Stdout, say.T("Left alone: %s %s", o.Volume.Name, say.said(o.Whose)))
		}
	} else {
		if vs, err = a.findSettling(ctx, svc, pos); err != nil {
			return err
		}
		if len(vs) == 0 {
			return nil
		}
	}
	var errs []error
	for _, v := range vs {
		ej, err := a.eject(ctx, svc, v, disks.EjectOptions{Force: *force, NoSave: *noSave})
		var ns notSavedError
		if err != nil && !errors.As(err, &ns) {
			errs = append(errs, contentsErr(fmt.Errorf("eject %s: %w", v.Name, err)))
			continue
		}
		fmt.Fprintln(a.Stdout, ejectedLine(a.say(), v.Name, ej.Detached))
		if err != nil {
			errs = append(errs, err) // said on stderr already; the exit says refused
		}
	}
	err = errors.Join(errs...)
	if err != nil && allNotSaved(errs) {
		// Ejected, but a save was refused: exit 6 with one line that says so.
		return refusedError{errors.New("ejected, but not saved first (see above); its saved copy is kept as it was")}
	}
	return interrupted(ctx, err)
}

// notSavedError is a disk ejected although its save was refused for
// safety: the eject happened, the refusal is the exit status.
type notSavedError struct{ error }

func (e notSavedError) Unwrap() error { return e.error }

func allNotSaved(errs []error) bool {
	for _, err := range errs {
		var ns notSavedError
		if !errors.As(err, &ns) {
			return false
		}
	}
	return true
}

// eject ejects one disk through the use case (saving a kept disk first) and
// says what the save did: a save refused for safety (an empty or foreign
// disk) holds nothing worth keeping over the saved copy, so the eject went
// on, and says so.
func (a *App) eject(ctx context.Context, svc *disks.Service, v ramdisk.Volume, o disks.EjectOptions) (disks.Ejected, error) {
	var done func()
	o.Progress, done = a.contentsProgress(false)
	ej, err := svc.Eject(ctx, v, o)
	done()
	if ej.NotSaved != nil {
		fmt.Fprintln(a.Stderr, a.say().T("rambar: %s: not saved before eject: %v", v.Name, ej.NotSaved))
	}
	if ej.KeptIn != "" && err == nil {
		fmt.Fprintln(a.Stderr, a.say().T("rambar: %s: ejected anyway (--force); its last saved state is %s", v.Name, ej.KeptIn))
	}
	if ej.Saved != nil {
		fmt.Fprintln(a.Stdout, describeSave(a.say(), v.Name, *ej.Saved))
	}
	if errors.Is(err, keeper.ErrIncomplete) {
		return ej, refusedError{err}
	}
	if err == nil && ej.NotSaved != nil && !o.Force { // --force overrides the refusal
		return ej, notSavedError{refusedError{ej.NotSaved}}
	}
	return ej, err
}

// ejectedLine says a disk was ejected; one detached lazily names the
// processes that still hold its memory (and how much, when measured).
func ejectedLine(s speech, name string, d *disks.Detached) string {
	switch {
	case d == nil:
		return s.T("Ejected %s", name)
	case d.Held <= 0:
		return s.T("Ejected %s, lazily: it is out of the file tree, but its memory stays held until these processes exit "+
			"or close its files: %s ('rambar list' shows it until then)", name, d.PIDs())
	}
	return s.T("Ejected %s, lazily: it is out of the file tree, but its memory (%s) stays held until these processes exit "+
		"or close its files: %s ('rambar list' shows it until then)", name, s.Size(d.Held), d.PIDs())
}

// findSettling finds the named disks (disks.Service.FindAll); a name not
// listed whose disk in place left something behind (an eject that did not
// finish) is settled first (disks.Service.Settle): a disk that still covers
// its folder is listed again and found, one that is gone is said so.
func (a *App) findSettling(ctx context.Context, svc *disks.Service, names []string) ([]ramdisk.Volume, error) {
	vs, err := svc.FindAll(ctx, names)
	if !errors.Is(err, ramdisk.ErrNotFound) {
		return vs, err
	}
	var left []string
	for _, n := range names {
		if _, err := svc.Find(ctx, n); !errors.Is(err, ramdisk.ErrNotFound) {
			left = append(left, n)
			continue
		}
		settled, err := svc.Settle(ctx, n)
		if err != nil {
			return nil, err
		}
		if _, err := svc.Find(ctx, n); settled && errors.Is(err, ramdisk.ErrNotFound) {
			fmt.Fprintln(a.Stderr, a.say().T("rambar: note: nothing of %s is mounted now: what an earlier eject left of it was removed", n))
			continue
		}
		left = append(left, n)
	}
	if len(left) == 0 {
		return nil, nil
	}
	return svc.FindAll(ctx, left)
}
