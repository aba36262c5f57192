package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"rambar/disks"
	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	flags := []flagSpec{
		flagString("mirror", "FOLDER", i18n.N("write the disk into this empty folder now and on every save (else: keep it in RAMBar's store)")),
		flagBool("create-folder", i18n.N("with --mirror: make the folder if it does not exist")),
		flagInt("snapshots", "N", 0, i18n.N("how many saves to keep (default 5)")),
		flagString("save-every", "10m|auto", i18n.N("autosave interval while the menu-bar app runs (0: off; auto: seconds after each change)")),
		flagBool("force", i18n.N("keep it although its name has saved contents of an earlier disk (they stay as older snapshots), or another data folder made it")),
	}
	register(&command{Name: "keep", Summary: i18n.N("keep a mounted disk's contents from now on, or change how a kept disk is saved"),
		Doc: i18n.N("For a disk made without --keep or --mirror. Without --mirror its contents are saved now and on every eject, " +
			"and restored when it is made again, as with create --keep. With --mirror FOLDER (an empty folder) the disk is " +
			"written into the folder now and on every save and eject, as with create --mirror. " +
			"On a disk kept or mirrored already, --save-every and --snapshots change how it is saved from now on " +
			"(nothing is saved then; a preset of the same name keeps its own settings: 'rambar preset edit' changes those)."),
		Args:  []arg{{Name: "NAME", Doc: i18n.N("a mounted disk (its name or mount point)")}},
		Flags: flags, Refuses: clashLines(flags),
		JSON: true, Example: "keep Scratch\nkeep Site --mirror ~/Sites/site --create-folder\nkeep Work --save-every auto --snapshots 10", Order: 39, Run: runKeep})
}

func runKeep(ctx context.Context, a *App, in *input) error {
	mirrorDir, force, asJSON := in.String("mirror"), in.Bool("force"), in.Bool("json")
	folder, err := a.pathArg("--mirror", *mirrorDir)
	if err != nil {
		return err
	}
	if err := ramdisk.CheckChoices(flagChoices(in, folder, "")); err != nil {
		return err
	}
	contents, err := contentsOptions(contentsFlags{Keep: folder == "", Mirror: folder, Snapshots: *in.Int("snapshots"), SnapshotsSet: in.Set("snapshots"),
		SaveEvery: *in.String("save-every"), SaveEverySet: in.Set("save-every")})
	if err != nil {
		return err
	}
	if err := a.createFolderFlag(in, &contents); err != nil {
		return err
	}
	svc, err := a.service()
	if err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	name := in.Args[0]
	if folder == "" && (in.Set("snapshots") || in.Set("save-every")) {
		adj, err := svc.Adjust(ctx, name, contents)
		if err == nil {
			return a.printAdjusted(ctx, svc, name, adj, *asJSON)
		}
		if !errors.Is(err, keeper.ErrNotKept) {
			return contentsErr(err)
		}
	}
	fn, done := a.contentsProgress(*asJSON)
	r, err := svc.Keep(ctx, disks.KeepRequest{Name: name, Contents: contents, Force: *force, Progress: fn})
	done()
	if err != nil {
		return interrupted(ctx, keepErr(err))
	}
	v, err := svc.Find(ctx, name)
	if err != nil {
		return err
	}
	a.noteAutosave(v.Name, a.autosaveOf(v.Name))
	if *asJSON {
		return writeJSON(a.Stdout, struct {
			Version  int           `json:"version"`
			Name     string        `json:"name"`
			Contents *contentsJSON `json:"contents"`
			Saved    resultJSON    `json:"saved"`
		}{jsonVersion, v.Name, keptContents(a.contentsOf(v, false)), toResultJSON(r)})
	}
	if contents.Mode == ramdisk.Mirror {
		fmt.Fprintln(a.Stdout, a.say().T("%s now mirrors %s: written there now, and again on every save and eject", v.Name, contents.MirrorPath))
	} else {
		fmt.Fprintln(a.Stdout, a.say().T("%s is kept now: saved on every eject, and restored when it is made again ('rambar create %s SIZE --keep')",
			v.Name, quoteName(v.Name)))
	}
	fmt.Fprintln(a.Stdout, describeSave(a.say(), v.Name, r))
	return nil
}

// keptContents is keep's report of the disk's contents: how it is kept,
// not how it is followed. The agent that ran the keep follows the disk at
// once; an agent beside a keep made directly, a moment later: what
// follows it is info's and doctor's to say.
func keptContents(c *contentsJSON) *contentsJSON {
	if c != nil {
		c.Feed = nil
	}
	return c
}

// printAdjusted tells what keep changed on a disk kept already.
func (a *App) printAdjusted(ctx context.Context, svc *disks.Service, name string, adj keeper.Adjusted, asJSON bool) error {
	v, err := svc.Find(ctx, name)
	if err != nil {
		return err
	}
	a.noteAutosave(v.Name, a.autosaveOf(v.Name))
	if asJSON {
		return writeJSON(a.Stdout, struct {
			Version  int           `json:"version"`
			Name     string        `json:"name"`
			Contents *contentsJSON `json:"contents"`
			Saved    *resultJSON   `json:"saved"`
		}{jsonVersion, v.Name, keptContents(a.contentsOf(v, false)), nil})
	}
	say := a.say()
	was, now := savingWords(say, adj.Before), savingWords(say, adj.After)
	mirror := adj.After.Mode == ramdisk.Mirror
	switch {
	case was == now && mirror:
		fmt.Fprintln(a.Stdout, say.T("%s is mirrored to %s and %s already: nothing changed", v.Name, adj.After.MirrorPath, now))
	case was == now:
		fmt.Fprintln(a.Stdout, say.T("%s is kept and %s already: nothing changed", v.Name, now))
	case mirror:
		fmt.Fprintln(a.Stdout, say.T("%s is mirrored to %s; from now on %s (was: %s)", v.Name, adj.After.MirrorPath, now, was))
	default:
		fmt.Fprintln(a.Stdout, say.T("%s is kept; from now on %s (was: %s)", v.Name, now, was))
	}
	if len(adj.Pruned) > 0 {
		fmt.Fprintln(a.Stderr, a.say().T("rambar: warning: its next save deletes the %d oldest snapshots (%s)",
			len(adj.Pruned), strings.Join(adj.Pruned, ", ")))
	}
	if p, ok := svc.PresetDiffers(v.Name, adj.After); ok {
		fmt.Fprintln(a.Stderr, say.T("rambar: note: the preset %s sets its own at its next mount (%s); 'rambar preset edit %s' with the same flags changes that",
			v.Name, savingWords(say, p), quoteName(v.Name)))
	}
	return nil
}

// keepErr maps keep's refusals onto the CLI's exit codes: a disk kept
// already, a try disk and a folder that cannot be mirrored are bad
// arguments (exit 2); a name with saved contents is a refusal (exit 6).
func keepErr(err error) error {
	switch {
	case errors.Is(err, keeper.ErrAlreadyKept):
		return usagef("%v; --save-every or --snapshots change how it is saved", err)
	case errors.Is(err, disks.ErrTryDisk):
		return usagef("%v", err)
	case errors.Is(err, keeper.ErrClaimed):
		return refusedError{err}
	case errors.Is(err, disks.ErrContents):
		return usagef("%v", withCreateFolder(err))
	}
	return contentsErr(err)
}

// savingWords is keeper.SavingWords in s's language: how a kept disk is
// saved and how many snapshots it keeps.
func savingWords(s speech, st keeper.State) string {
	switch {
	case s.english():
		return keeper.SavingWords(st)
	case st.Continuous:
		return s.T("saved continuously (seconds after each change), %d snapshots kept", st.Snapshots)
	case st.SaveEvery > 0:
		return s.T("saved every %s, %d snapshots kept", s.Number(ramdisk.ShortDuration(time.Duration(st.SaveEvery)*time.Second)), st.Snapshots)
	}
	return s.T("saved at eject and by 'rambar save', %d snapshots kept", st.Snapshots)
}
