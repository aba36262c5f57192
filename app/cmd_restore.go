package main

import (
	"context"
	"flag"
	"fmt"

	"rambar/disks"
	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "restore", Args: "NAME [--snapshot ID] [--compress] [--force] [--json]",
		Summary: "put a saved state back on a kept disk (--force: replace the files it holds)", Order: 41, Run: runRestore})
}

func runRestore(ctx context.Context, a *App, args []string) error {
	fl := flag.NewFlagSet("restore", flag.ContinueOnError)
	snap := fl.String("snapshot", "", "snapshot ID (see 'rambar snapshots NAME'); default the latest")
	force := fl.Bool("force", false, "replace the files on the disk, even unsaved ones")
	asJSON := fl.Bool("json", false, "print JSON")
	compress := fl.Bool("compress", false, "macOS: write the files compressed (ditto --hfsCompression), so they take less memory")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return err
	}
	if err := wantArgs("restore", pos, 1, 1); err != nil {
		return err
	}
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
	fn, done := a.contentsProgress()
	if *asJSON {
		fn = nil
	}
	r, err := svc.Restore(ctx, v, disks.RestoreOptions{Snapshot: *snap, Force: *force, Progress: fn})
	done()
	if err != nil {
		return contentsErr(err)
	}
	if *asJSON {
		return writeJSON(a.Stdout, struct {
			Version int    `json:"version"`
			Name    string `json:"name"`
			mirror.Result
		}{jsonVersion, v.Name, r})
	}
	fmt.Fprintf(a.Stdout, "Restored %s from %s: %d files (%s)\n", v.Name, r.Snapshot, r.Files, ramdisk.Size(r.Bytes).Short())
	return nil
}
