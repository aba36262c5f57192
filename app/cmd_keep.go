package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/disks"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	flags := []flagSpec{
		flagString("mirror", "FOLDER", "write the disk into this empty folder now and on every save (else: keep it in RAMBar's store)"),
		flagBool("create-folder", "with --mirror: make the folder if it does not exist"),
		flagInt("snapshots", "N", 0, "how many saves to keep (default 5)"),
		flagString("save-every", "10m|auto", "autosave interval while the menu-bar app runs (0: off; auto: seconds after each change)"),
		flagBool("force", "keep it although its name has saved contents of an earlier disk (they stay as older snapshots), or another data folder made it"),
	}
	register(&command{Name: "keep", Summary: "keep a mounted disk's contents from now on, without ejecting it",
		Doc: "For a disk made without --keep or --mirror. Without --mirror its contents are saved now and on every eject, " +
			"and restored when it is made again, as with create --keep. With --mirror FOLDER (an empty folder) the disk is " +
			"written into the folder now and on every save and eject, as with create --mirror.",
		Args:  []arg{{Name: "NAME", Doc: "a mounted disk (its name or mount point)"}},
		Flags: flags, Refuses: clashLines(flags),
		JSON: true, Example: "keep Scratch\nkeep Site --mirror ~/Sites/site --create-folder", Order: 39, Run: runKeep})
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
	fn, done := a.contentsProgress(*asJSON)
	name := in.Args[0]
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
		}{jsonVersion, v.Name, a.contentsOf(v, false), toResultJSON(r)})
	}
	if contents.Mode == ramdisk.Mirror {
		fmt.Fprintf(a.Stdout, "%s now mirrors %s: written there now, and again on every save and eject\n", v.Name, contents.MirrorPath)
	} else {
		fmt.Fprintf(a.Stdout, "%s is kept now: saved on every eject, and restored when it is made again ('rambar create %s SIZE --keep')\n",
			v.Name, quoteName(v.Name))
	}
	fmt.Fprintln(a.Stdout, describeSave(v.Name, r))
	return nil
}

// keepErr maps keep's refusals onto the CLI's exit codes: a disk kept
// already, a try disk and a folder that cannot be mirrored are bad
// arguments (exit 2); a name with saved contents is a refusal (exit 6).
func keepErr(err error) error {
	switch {
	case errors.Is(err, keeper.ErrAlreadyKept), errors.Is(err, disks.ErrTryDisk):
		return usagef("%v", err)
	case errors.Is(err, keeper.ErrClaimed):
		return refusedError{err}
	case errors.Is(err, disks.ErrContents):
		return usagef("%v", withCreateFolder(err))
	}
	return contentsErr(err)
}
