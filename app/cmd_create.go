package main

import (
	"context"
	"flag"
	"fmt"

	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "create", Args: "NAME SIZE [--fs FS] [--hidden] [--keep | --mirror FOLDER [--create-folder]] [--snapshots N] [--save-every 10m] [--compress] [--force] [--json]",
		Summary: "make a RAM disk (fs: apfs, apfs-case, hfs+, hfs+-case, tmpfs, zram); --keep saves its contents, --mirror loads and writes back a folder", Order: 10, Run: runCreate})
}

func runCreate(ctx context.Context, a *App, args []string) error {
	fl := flag.NewFlagSet("create", flag.ContinueOnError)
	fsName := fl.String("fs", "", "file system")
	hidden := fl.Bool("hidden", false, "hide from Finder's sidebar")
	force := fl.Bool("force", false, "make it even if memory is short")
	asJSON := fl.Bool("json", false, "print the plan and the disk as JSON")
	keep := fl.Bool("keep", false, "keep the contents: restore the last save now, save on eject")
	mirrorDir := fl.String("mirror", "", "load this folder into the disk and write changes back to it")
	createFolder := fl.Bool("create-folder", false, "with --mirror: make the folder if it does not exist")
	snapshots := fl.Int("snapshots", 0, "how many saves to keep (default 5)")
	saveEvery := fl.Duration("save-every", 0, "autosave interval for the menu-bar app (e.g. 10m)")
	compress := fl.Bool("compress", false, "macOS, with --keep or --mirror: restore the files compressed (ditto --hfsCompression)")
	pos, err := parseFlags(fl, args)
	if err != nil {
		return err
	}
	contents, err := contentsOptions(*keep, *mirrorDir, *snapshots, *saveEvery)
	if err != nil {
		return err
	}
	if *createFolder && contents.Mode != ramdisk.Mirror {
		return usagef("--create-folder needs --mirror FOLDER")
	}
	contents.CreateFolder = *createFolder
	if *compress && contents.Mode == ramdisk.Discard {
		return usagef("--compress needs --keep or --mirror: it applies to restored contents")
	}
	if err := a.setCompress(*compress); err != nil {
		return err
	}
	if err := wantArgs("create", pos, 2, 2); err != nil {
		return err
	}
	req := ramdisk.Request{Name: pos[0], Hidden: *hidden, Force: *force}
	if *fsName != "" {
		if req.FS, err = ramdisk.ParseFileSystem(*fsName); err != nil {
			return err
		}
	}
	plan, v, err := a.createDisk(ctx, req, createOpts{Size: pos[1], Quiet: *asJSON, Contents: contents})
	if err != nil {
		return err
	}
	if *asJSON {
		dj := toDiskJSON(disk{Volume: v})
		dj.Contents = a.contentsOf(v, false)
		return writeJSON(a.Stdout, struct {
			Version int          `json:"version"`
			Plan    ramdisk.Plan `json:"plan"`
			Disk    diskJSON     `json:"disk"`
		}{jsonVersion, plan, dj})
	}
	fmt.Fprintf(a.Stdout, "Created %s at %s (%s)\n", v.Name, v.MountPoint, v.Device)
	return nil
}

// printPlan prints what is about to happen and what the user must know.
func printPlan(a *App, p ramdisk.Plan) {
	fmt.Fprintf(a.Stdout, "Creating %s\n", p.Summary())
	for _, n := range p.Notes {
		fmt.Fprintf(a.Stdout, "  · %s\n", n)
	}
}
