package main

import (
	"context"
	"fmt"

	"rambar/ramdisk"
)

// Arguments and flags more than one verb declares.
var (
	nameArg = arg{Name: "NAME", Doc: "the disk's name: any Unicode but '/', ':' and control characters, " +
		"not starting with '.', up to 255 bytes"}
	sizeArg = arg{Name: "SIZE", Doc: "512M, 4G, 4GiB, 1.5G, 4096MiB, or 25% (of physical memory); " +
		"a bare number is MiB; units are binary"}
	fsFlag = flagString("fs", "FS", "file system: apfs, apfs-case, hfs+, hfs+-case, tmpfs or zram "+
		"(default: apfs on macOS, tmpfs on Linux)")
	hiddenFlag = flagBool("hidden", "hide it from Finder's sidebar (macOS)")
	mirrorFlag = flagString("mirror", "FOLDER", "load this folder into the disk and write changes back to it")
)

func init() {
	register(&command{Name: "create", Summary: "make a RAM disk; it prints the plan first",
		Doc: "--keep saves its contents on eject and restores them when it is made again; " +
			"--mirror loads a folder and writes changes back to it.",
		Args: []arg{nameArg, sizeArg},
		Flags: []flagSpec{
			fsFlag, hiddenFlag,
			flagBool("keep", "keep the contents: restore the last save now, save on eject"),
			mirrorFlag,
			flagBool("create-folder", "with --mirror: make the folder if it does not exist"),
			flagInt("snapshots", "N", 0, "how many saves to keep, with --keep or --mirror (default 5)"),
			flagDuration("save-every", "10m", "autosave interval while the menu-bar app runs, with --keep or --mirror"),
			flagBool("compress", "macOS, with --keep or --mirror: restore the files compressed (ditto --hfsCompression)"),
			flagBool("force", "make it even if memory is short"),
		},
		JSON: true, Example: "create Scratch 4G\ncreate Work 8G --fs hfs+ --keep --save-every 10m",
		Order: 10, Run: runCreate})
}

func runCreate(ctx context.Context, a *App, in *input) error {
	fsName, hidden, force, asJSON := in.String("fs"), in.Bool("hidden"), in.Bool("force"), in.Bool("json")
	keep, mirrorDir, snapshots := in.Bool("keep"), in.String("mirror"), in.Int("snapshots")
	saveEvery, compress, pos := in.Duration("save-every"), in.Bool("compress"), in.Args
	createFolder := in.Bool("create-folder")
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
