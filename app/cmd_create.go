package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"rambar/disks"
	"rambar/i18n"
	"rambar/ramdisk"
	"rambar/tray"
)

// Arguments and flags more than one verb declares.
var (
	nameArg = arg{Name: "NAME", Doc: i18n.N("the disk's name: any Unicode but '/', ':' and control characters, " +
		"not starting with '.', up to 255 bytes; letter case counts on Linux, not on macOS")}
	sizeArg = arg{Name: "SIZE", Doc: i18n.N("512M, 4G, 4GiB, 1.5G, 4096MiB, or 25%% (of physical memory); " +
		"a bare number is MiB; units are binary")}
	fsFlag           = flagString("fs", "FS", fileSystemsHere())
	hiddenFlag       = flagBool("hidden", i18n.N("hide it from Finder's sidebar (macOS)"))
	mirrorFlag       = flagString("mirror", "FOLDER", i18n.N("load this folder into the disk and write changes back to it"))
	createFolderFlag = flagBool("create-folder", i18n.N("with --mirror: make the folder if it does not exist (else a missing folder is refused)"))
	inPlaceFlag      = flagBool("in-place", i18n.N("with --mirror: once loaded, mount the disk over the folder itself, so its own path runs from memory"))
)

// fileSystemsHere is --fs's description: the file systems this OS's engine
// makes; the engine refuses the others with "not supported here".
func fileSystemsHere() string {
	switch runtime.GOOS {
	case "darwin":
		return i18n.N("file system: apfs (the default), apfs-case, hfs+, hfs+-case, jhfs+ (journaled), or tmpfs (needs administrator rights)")
	case "linux":
		return i18n.N("file system: tmpfs (the default), or zram (compressed, where the kernel has it)")
	}
	return i18n.N("file system: none on this OS")
}

func init() {
	flags := append([]flagSpec{
		fsFlag, hiddenFlag,
		flagBool("keep", i18n.N("keep the contents: restore the last save now, save on eject")),
		mirrorFlag, createFolderFlag, inPlaceFlag,
		flagInt("snapshots", "N", 0, i18n.N("how many saves to keep, with --keep or --mirror (default 5, or what the name kept before)")),
		flagString("save-every", "10m|auto", i18n.N("autosave interval while the menu-bar app runs, with --keep or --mirror (0: off; auto: seconds after each change; default: what the name had before)")),
		flagBool("set-aside-kept", i18n.N("with --mirror: mirror the folder although the name holds kept work in no folder, keeping that work as a snapshot never pruned")),
		flagBool("compress", i18n.N("macOS, with --keep or --mirror: restore the files compressed (ditto --hfsCompression)")),
		flagBool("force", i18n.N("make it even if memory is short")),
	}, volumeFlagSpecs()...)
	register(&command{Name: "create", Summary: i18n.N("make a RAM disk; it prints the plan first"),
		Doc: i18n.N("--keep saves its contents on eject and restores them when it is made again; " +
			"--mirror loads a folder and writes changes back to it."),
		Args:  []arg{nameArg, sizeArg},
		Flags: flags,
		JSON:  true, Example: "create Scratch 4G\ncreate Site 2G --mirror ~/Sites/site --in-place\ncreate Work 8G --keep --save-every 10m\n" +
			"create Downloads 2G --noexec --folders incoming,unpacked --icon dl.png",
		Refuses: clashLines(flags), Order: 10, Run: runCreate})
}

func runCreate(ctx context.Context, a *App, in *input) error {
	fsName, hidden, force, asJSON := in.String("fs"), in.Bool("hidden"), in.Bool("force"), in.Bool("json")
	keep, mirrorDir, snapshots := in.Bool("keep"), in.String("mirror"), in.Int("snapshots")
	saveEvery, compress := in.String("save-every"), in.Bool("compress")
	pos := a.nameSize(in.Args)
	folder, err := a.pathArg("--mirror", *mirrorDir)
	if err != nil {
		return err
	}
	mountPoint, err := a.pathArg("--mount-point", *in.String("mount-point"))
	if err != nil {
		return err
	}
	if err := ramdisk.CheckChoices(flagChoices(in, folder, mountPoint)); err != nil {
		return err
	}
	contents, err := contentsOptions(contentsFlags{Keep: *keep, Mirror: folder, Snapshots: *snapshots, SnapshotsSet: in.Set("snapshots"),
		SaveEvery: *saveEvery, SaveEverySet: in.Set("save-every"), SetAside: *in.Bool("set-aside-kept")})
	if err != nil {
		return err
	}
	// Refused before the plan is printed; the disk's making checks again.
	if err := a.createFolderFlag(in, &contents); err != nil {
		return err
	}
	if contents.Mode == ramdisk.Mirror {
		contents.InPlace = *in.Bool("in-place")
		if err := a.checkInPlace(contents); err != nil {
			return err
		}
	}
	if err := a.setCompress(*compress); err != nil {
		return err
	}
	req := ramdisk.Request{Name: pos[0], Hidden: *hidden, Force: *force}
	if req.Options, err = a.volumeOptions(in); err != nil {
		return err
	}
	if *fsName != "" {
		if req.FS, err = a.parseFS(*fsName); err != nil {
			return err
		}
	}
	plan, v, err := a.createDisk(ctx, req, createOpts{Size: pos[1], Quiet: *asJSON, Contents: contents})
	if err != nil {
		return a.takenByOther(ctx, req.Name, err)
	}
	a.noteAutosave(v.Name, a.autosaveOf(v.Name))
	if *asJSON {
		dj := a.measuredDiskJSON(ctx, v)
		dj.Contents, dj.InPlace = a.contentsOf(v, false), a.inPlaceAt(ctx, v)
		return writeJSON(a.Stdout, struct {
			Version int          `json:"version"`
			Plan    ramdisk.Plan `json:"plan"`
			Disk    diskJSON     `json:"disk"`
		}{jsonVersion, plan, dj})
	}
	fmt.Fprintln(a.Stdout, a.say().T("Created %s at %s (%s)", v.Name, v.MountPoint, v.Device))
	printVolumeNotes(a, v)
	if sv, ok := a.files().NotKept(v); ok {
		fmt.Fprintln(a.Stdout, savedHint(sv, true))
	}
	return nil
}

// takenByOther says, when a create was refused because the name is
// mounted already as another user's disk, whose it is and how to have one
// of one's own (the mount root is shared by every user).
func (a *App) takenByOther(ctx context.Context, name string, err error) error {
	if !errors.Is(err, ramdisk.ErrExists) {
		return err
	}
	ds, lerr := a.disks(ctx)
	if lerr != nil {
		return err
	}
	for _, d := range ds {
		if d.Name != name {
			continue
		}
		if user := ramdisk.OtherUser(a.files().Whose(d.Volume)); user != "" {
			return fmt.Errorf("%w; it is %s's disk: give yours another name, a --mount-point of your own, "+
				"or mount yours under a folder of your own with RAMBAR_MOUNT_ROOT", err, user)
		}
	}
	return err
}

// nameSize is NAME SIZE as given, or swapped when they were given the other
// way round (`create 4G Scratch`: the first is a size, the second is not),
// saying so on stderr.
func (a *App) nameSize(pos []string) []string {
	if len(pos) != 2 {
		return pos
	}
	_, firstErr := ramdisk.ParseSize(pos[0], ramdisk.MaxSize)
	_, secondErr := ramdisk.ParseSize(pos[1], ramdisk.MaxSize)
	if firstErr != nil || secondErr == nil {
		return pos
	}
	fmt.Fprintln(a.Stderr, a.say().T("rambar: note: taking %s as the name and %s as the size (NAME comes first)", quoteName(pos[1]), pos[0]))
	return []string{pos[1], pos[0]}
}

// savedHint tells that a disk made without keeping has saved contents
// waiting under its name, and how to get them; made says it was just made.
func savedHint(sv disks.Saved, made bool) string {
	n := quoteName(sv.Name)
	last := "never saved"
	if !sv.LastSave.IsZero() {
		last = "last saved " + sv.LastSave.Local().Format("2006-01-02 15:04")
	}
	rest := fmt.Sprintf("'rambar restore %s' puts them on this disk, or eject it and make it with --keep; "+
		"'rambar forget %s' deletes them", n, n)
	if made {
		return fmt.Sprintf("Saved contents of %s exist (%s); this disk is not kept: %s.", sv.Name, last, rest)
	}
	return fmt.Sprintf("not kept, but saved contents of %s exist (%s, in %s): %s", sv.Name, last, sv.Dir, rest)
}

// parseFS reads --fs; a name it does not know gets the nearest one this
// machine makes, or the list of them (not every file system RAMBar knows).
func (a *App) parseFS(s string) (ramdisk.FileSystem, error) {
	fs, err := ramdisk.ParseFileSystem(s)
	if err == nil {
		return fs, nil
	}
	here := ramdisk.AllFileSystems
	if e, err := a.Engine(); err == nil && len(e.Caps().FileSystems) > 0 {
		here = e.Caps().FileSystems
	}
	names := make([]string, len(here))
	for i, f := range here {
		names[i] = string(f)
	}
	if best := nearest(s, names); best != "" {
		return "", fmt.Errorf("%w %q; did you mean %s?", ramdisk.ErrFileSystem, s, best)
	}
	return "", fmt.Errorf("%w %q: use one of %s", ramdisk.ErrFileSystem, s, strings.Join(names, ", "))
}

// autosave is how a kept disk or a preset is saved by the menu-bar app:
// every Every, or continuously (--save-every auto, stored as interval 0
// with Continuous set); neither: not autosaved.
type autosave struct {
	Every      time.Duration
	Continuous bool
}

// autosaveOf is the autosave stored for a kept disk (zero: none).
func (a *App) autosaveOf(name string) autosave {
	k, err := a.keeper()
	if err != nil {
		return autosave{}
	}
	st, err := k.State(name)
	if err != nil {
		return autosave{}
	}
	return autosave{Every: time.Duration(st.SaveEvery) * time.Second, Continuous: st.Continuous}
}

// presetAutosave is the autosave a preset sets.
func presetAutosave(p ramdisk.Preset) autosave {
	return autosave{Every: p.SaveInterval(), Continuous: p.SaveAuto}
}

// noteAutosave warns, on stderr, that a disk's autosave (an interval, or
// continuous) waits for the menu-bar app when that is not running.
func (a *App) noteAutosave(name string, as autosave) {
	if as.Every <= 0 && !as.Continuous || a.menuBarRunning() {
		return
	}
	s := a.say()
	if as.Every > 0 {
		fmt.Fprintln(a.Stderr, s.T("rambar: note: %s is saved every %s only while the menu-bar app runs, and it is not running now; "+
			"start it with 'rambar' (at each login: 'rambar login on'; without a desktop: 'rambar agent', at boot: 'rambar login on --headless'), "+
			"or save now with 'rambar save %s'", name, s.Number(ramdisk.ShortDuration(as.Every)), name))
		return
	}
	fmt.Fprintln(a.Stderr, s.T("rambar: note: %s is saved continuously (seconds after each change) only while the menu-bar app runs, "+
		"and it is not running now; start it with 'rambar' (at each login: 'rambar login on'; without a desktop: 'rambar agent', "+
		"at boot: 'rambar login on --headless'), or save now with 'rambar save %s'", name, name))
}

// planSummary is the plan's first line (ramdisk.Plan.Summary) in s's
// language: "Scratch: 4 GiB APFS, grows as written", as the menu says it.
func planSummary(s speech, p ramdisk.Plan) string {
	if s.english() {
		return p.Summary()
	}
	return tray.PlanSummary(s.p, p)
}

// printPlan prints what is about to happen and what the user must know.
func printPlan(a *App, p ramdisk.Plan) {
	fmt.Fprintln(a.Stdout, a.say().T("Creating %s", planSummary(a.say(), p)))
	for _, n := range p.Notes {
		fmt.Fprintf(a.Stdout, "  · %s\n", noteText(a.say(), n))
	}
}

// noteText is a plan's note in s's language, as the menu's New RAM Disk
// window says it (its English text in English, and when it was not made
// from a format).
func noteText(s speech, n ramdisk.Note) string {
	if s.english() {
		return n.String()
	}
	return tray.NoteText(s.p, n)
}

// noteBody is a plan's note in s's language without its "Tip: " or
// "Warning: ".
func noteBody(s speech, n ramdisk.Note) string {
	if s.english() {
		return n.Text
	}
	return tray.NoteBody(s.p, n)
}
