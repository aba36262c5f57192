package main

import (
	"strings"
	"time"

	"rambar/i18n"
	"rambar/ramdisk"
)

// presetFlags are the flags add and edit share. edit changes only the ones
// given (input.Set).
type presetFlags struct {
	fs, mirror, saveEvery string
	hidden, noHidden      bool
	auto, noAuto          bool
	keep, discard         bool
	inPlace, noInPlace    bool
	snapshots             int
	set                   map[string]bool
}

// presetFlagSpecs declares add's flags, and edit's when edit is set.
func presetFlagSpecs(edit bool) []flagSpec {
	fs := []flagSpec{
		fsFlag, hiddenFlag,
		flagBool("auto-mount", i18n.N("mount at login ('rambar up')")),
		flagBool("keep", i18n.N("save the contents and restore them when the disk is made")),
		mirrorFlag, createFolderFlag, inPlaceFlag,
		flagString("save-every", "10m", i18n.N("autosave interval while the menu-bar app runs (10m, 1h, off; auto: seconds after each change)")),
		flagInt("snapshots", "K", 0, i18n.N("how many past saves to keep")),
	}
	fs = append(fs, volumeFlagSpecs()...)
	fs = append(fs, flagString("caches", "T1,T2", i18n.N("cache folders to switch onto the disk when it is mounted (see 'rambar cache list')")))
	if edit {
		fs = append(fs,
			flagString("size", "SIZE", i18n.N("the new size (or give it after the name)")),
			flagBool("no-hidden", i18n.N("show it in Finder's sidebar")),
			flagBool("no-auto-mount", i18n.N("do not mount at login")),
			flagBool("no-in-place", i18n.N("mount the Mirror disk at its own mount point, not over its folder")),
			flagBool("discard", i18n.N("contents die with the disk")))
	}
	return fs
}

// newPresetFlags reads add's or edit's flags from in and refuses ones that
// contradict each other.
func newPresetFlags(in *input) (*presetFlags, error) {
	p := &presetFlags{set: in.set, fs: *in.String("fs"), mirror: *in.String("mirror"), saveEvery: *in.String("save-every"),
		hidden: *in.Bool("hidden"), auto: *in.Bool("auto-mount"), keep: *in.Bool("keep"), snapshots: *in.Int("snapshots"),
		inPlace: *in.Bool("in-place")}
	if _, edit := in.cmd.flag("discard"); edit {
		p.noHidden, p.noAuto, p.discard = *in.Bool("no-hidden"), *in.Bool("no-auto-mount"), *in.Bool("discard")
		p.noInPlace = *in.Bool("no-in-place")
	}
	for _, pair := range [][2]string{{"hidden", "no-hidden"}, {"auto-mount", "no-auto-mount"}, {"in-place", "no-in-place"}} {
		if p.set[pair[0]] && p.set[pair[1]] {
			return nil, usagef("--%s and --%s contradict each other", pair[0], pair[1])
		}
	}
	n := 0
	for _, f := range []string{"keep", "mirror", "discard"} {
		if p.set[f] {
			n++
		}
	}
	if n > 1 {
		return nil, usagef("give only one of --keep, --mirror PATH and --discard")
	}
	return p, nil
}

// change turns the given flags into a PresetChange; parseFS reads --fs,
// path makes --mirror's folder absolute (App.pathArg).
func (p *presetFlags) change(parseFS func(string) (ramdisk.FileSystem, error), path func(what, v string) (string, error)) (ramdisk.PresetChange, error) {
	var c ramdisk.PresetChange
	if p.set["fs"] {
		fs, err := parseFS(p.fs)
		if err != nil {
			return c, err
		}
		c.FS = &fs
	}
	if p.set["hidden"] || p.set["no-hidden"] {
		c.Hidden = ptrTo(p.set["hidden"] && p.hidden || p.set["no-hidden"] && !p.noHidden)
	}
	if p.set["auto-mount"] || p.set["no-auto-mount"] {
		c.AutoMount = ptrTo(p.set["auto-mount"] && p.auto || p.set["no-auto-mount"] && !p.noAuto)
	}
	switch {
	case p.set["keep"] && p.keep:
		c.Contents = ptrTo(ramdisk.Keep)
	case p.set["discard"] && p.discard:
		c.Contents = ptrTo(ramdisk.Discard)
	case p.set["mirror"]:
		if strings.TrimSpace(p.mirror) == "" {
			return c, usagef("--mirror needs a folder")
		}
		abs, err := path("--mirror", p.mirror)
		if err != nil {
			return c, err
		}
		c.Contents, c.MirrorPath = ptrTo(ramdisk.Mirror), &abs
	}
	if p.set["create-folder"] && !p.set["mirror"] {
		return c, usagef("--create-folder goes with --mirror FOLDER")
	}
	if p.set["in-place"] || p.set["no-in-place"] {
		c.InPlace = ptrTo(p.set["in-place"] && p.inPlace || p.set["no-in-place"] && !p.noInPlace)
	}
	if p.set["save-every"] {
		secs, auto, err := parseSaveEvery(p.saveEvery)
		if err != nil {
			return c, err
		}
		if auto {
			c.SaveAuto = ptrTo(true)
		} else {
			c.SaveEvery = &secs
		}
	}
	if p.set["snapshots"] {
		if p.snapshots < 0 {
			return c, usagef("--snapshots %d: must be 0 or more", p.snapshots)
		}
		c.Snapshots = ptrTo(p.snapshots)
	}
	return c, nil
}

// parseSaveEvery reads an autosave interval: a Go duration of at least a
// second ("30s", "10m", "1h30m"), "off"/"0", or "auto" (continuously).
func parseSaveEvery(s string) (secs int, auto bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "0", "never":
		return 0, false, nil
	case "auto":
		return 0, true, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d < time.Second || d%time.Second != 0 {
		return 0, false, usagef("--save-every %q: use whole seconds or more, like 30s, 10m or 1h (or off, or auto)", s)
	}
	if d > 30*24*time.Hour {
		return 0, false, usagef("--save-every %q: at most 720h", s)
	}
	return int(d / time.Second), false, nil
}

func ptrTo[T any](v T) *T { return &v }
