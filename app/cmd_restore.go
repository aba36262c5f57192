package main

import (
	"context"
	"fmt"
	"time"

	"rambar/disks"
	"rambar/i18n"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "restore", Summary: i18n.N("put a saved state back on a kept or mirrored disk"),
		Doc: i18n.N("A restore that would not fit is refused before anything is written, and so is one over a disk with " +
			"something mounted inside it (a bind mount, another file system: unmount it first)."),
		Args: []arg{{Name: "NAME", Doc: i18n.N("a mounted kept or mirrored disk")}},
		Flags: []flagSpec{
			flagString("snapshot", "ID", i18n.N("the snapshot to restore: its ID from 'rambar snapshots NAME' or the start of it "+
				"(20261129T1200), the day (its latest save: 2026-11-29) or time shown there (\"2026-11-29 12:00\"), or latest (the default)")),
			flagBool("compress", i18n.N("macOS: write the files compressed (ditto --hfsCompression), so they take less memory")),
			flagBool("force", i18n.N("replace the files on the disk; unsaved ones are first saved as a safety snapshot")),
		},
		JSON: true, Example: "restore Work\nrestore Work --snapshot latest --force\nrestore Work --snapshot 2026-11-29", Order: 41, Run: runRestore})
}

func runRestore(ctx context.Context, a *App, in *input) error {
	snap, force, asJSON, compress := in.String("snapshot"), in.Bool("force"), in.Bool("json"), in.Bool("compress")
	pos := in.Args
	ctx, stop := interruptible(ctx)
	defer stop()
	if err := a.setCompress(*compress); err != nil {
		return err
	}
	if _, err := a.keeper(); err != nil {
		return err
	}
	svc, err := a.service()
	if err != nil {
		return err
	}
	v, err := svc.Find(ctx, pos[0])
	if err != nil {
		return err
	}
	if *snap != "" {
		k, err := a.keeper()
		if err != nil {
			return err
		}
		snaps, err := k.Snapshots(v.Name)
		if err != nil {
			return contentsErr(err)
		}
		var note string
		if *snap, note, err = resolveSnapshot(v.Name, *snap, snaps, time.Local); err != nil {
			return err
		}
		if note != "" {
			fmt.Fprintf(a.Stderr, "rambar: --snapshot %s\n", note)
		}
	}
	fn, done := a.contentsProgress(*asJSON)
	r, err := svc.Restore(ctx, v, disks.RestoreOptions{Snapshot: *snap, Force: *force, Progress: fn})
	done()
	if err != nil {
		return interrupted(ctx, contentsErr(err))
	}
	if *asJSON {
		return writeJSON(a.Stdout, struct {
			Version int    `json:"version"`
			Name    string `json:"name"`
			resultJSON
		}{jsonVersion, v.Name, toResultJSON(r)})
	}
	say := a.say()
	if r.Unchanged {
		fmt.Fprintln(a.Stdout, say.T("%s already holds %s exactly (%d files, %s): nothing to restore", v.Name, r.Snapshot, r.Files, say.Size(ramdisk.Size(r.Bytes))))
		return nil
	}
	if r.Safety != nil {
		fmt.Fprintln(a.Stdout, say.said(r.Safety.Describe(v.Name, "")))
	}
	fmt.Fprintln(a.Stdout, say.T("Restored %s from %s: %d files (%s)", v.Name, r.Snapshot, r.Files, say.Size(ramdisk.Size(r.Bytes))))
	if r.InUse != nil {
		fmt.Fprintln(a.Stdout, say.T("That snapshot was taken while in use: the disk never held still during its save, so its files "+
			"may not be one moment's state (a database may need its own recovery)")+describeInUse(say, r.InUse))
	}
	return nil
}
