package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rambar/cache"
	"rambar/i18n"
	"rambar/ramdisk"
	"rambar/volicon"
)

// volumeFlagSpecs are the flags of a disk's extras, for create and preset
// add and edit (edit: --noexec=false, --folders "" and so on turn one off).
func volumeFlagSpecs() []flagSpec {
	return []flagSpec{
		flagBool("noexec", i18n.N("mount it noexec, nosuid, nodev: nothing on it can run (a downloads disk)")),
		flagString("folders", "A,B/C", i18n.N("folders to make on it at every mount and after every restore")),
		flagString("mount-point", "FOLDER", i18n.N("mount it at this empty or absent folder of yours instead of the usual place")),
		flagString("icon", "FILE", i18n.N("the volume's icon, a .icns or .png file (Finder; on Linux the file is only copied)")),
		flagBool("spotlight", i18n.N("let Spotlight index it (macOS; off by default)")),
	}
}

// volumeOptions reads the extras' flags. Paths are made absolute (~
// expanded); the icon must be a readable file. Bad input is a usage error.
func (a *App) volumeOptions(in *input) (ramdisk.VolumeOptions, error) {
	o := ramdisk.VolumeOptions{NoExec: *in.Bool("noexec"), Spotlight: *in.Bool("spotlight")}
	var err error
	if o.Folders, err = ramdisk.ParseFolders(*in.String("folders")); err != nil {
		return o, usagef("--folders: %v", err)
	}
	if o.MountPoint, err = a.pathArg("--mount-point", *in.String("mount-point")); err != nil {
		return o, err
	}
	if o.Icon, err = a.pathArg("--icon", *in.String("icon")); err != nil {
		return o, err
	}
	if err := ramdisk.CheckIcon(o.Icon); err != nil {
		return o, usagef("--icon: %v", err)
	}
	if o.Icon != "" {
		if st, err := os.Stat(o.Icon); err != nil || !st.Mode().IsRegular() {
			return o, usagef("--icon %s: not a readable file", o.Icon)
		}
		if err := volicon.Check(o.Icon); err != nil {
			return o, usagef("--icon: %v", err)
		}
	}
	return o, nil
}

// volumeChange is the extras' part of a preset change: only the flags given.
func (a *App) volumeChange(in *input, c *ramdisk.PresetChange) error {
	o, err := a.volumeOptions(in)
	if err != nil {
		return err
	}
	if in.Set("noexec") {
		c.NoExec = &o.NoExec
	}
	if in.Set("spotlight") {
		c.Spotlight = &o.Spotlight
	}
	if in.Set("folders") {
		c.Folders = &o.Folders
	}
	if in.Set("mount-point") {
		c.MountPoint = &o.MountPoint
	}
	if in.Set("icon") {
		c.Icon = &o.Icon
	}
	if in.Set("caches") {
		var cs []string
		for _, arg := range strings.Split(*in.String("caches"), ",") {
			if arg = strings.TrimSpace(arg); arg == "" {
				continue
			}
			t, err := a.cacheTarget("--caches", arg, knownCaches())
			if err != nil {
				return err
			}
			cs = append(cs, t.Path)
		}
		c.Caches = &cs
	}
	return nil
}

// describeOptions is the extras' part of a preset's description, "" when none.
func describeOptions(p ramdisk.Preset) string {
	s := p.VolumeOptions().Phrase()
	if len(p.Caches) > 0 {
		if s != "" {
			s += ", "
		}
		s += fmt.Sprintf("caches %s", strings.Join(p.Caches, ", "))
	}
	return s
}

// optionsPhrase is a disk's extras that are set (ramdisk.VolumeOptions.
// Phrase) in s's language: "noexec, folders a, b/c, at /x, icon x.png,
// Spotlight on".
func optionsPhrase(s speech, o ramdisk.VolumeOptions) string {
	if s.english() {
		return o.Phrase()
	}
	var items []string
	if o.NoExec {
		items = append(items, s.T("noexec"))
	}
	if len(o.Folders) > 0 {
		items = append(items, s.T("folders %s", strings.Join(o.Folders, ", ")))
	}
	if o.MountPoint != "" {
		items = append(items, s.T("at %s", o.MountPoint))
	}
	if o.Icon != "" {
		items = append(items, s.T("icon %s", filepath.Base(o.Icon)))
	}
	if o.Spotlight {
		items = append(items, s.T("Spotlight on"))
	}
	return strings.Join(items, s.listSep())
}

// printVolumeNotes prints what the new disk's extras left to say (a folder
// not made, the icon's reach, a cache not switched back onto it).
func printVolumeNotes(a *App, v ramdisk.Volume) {
	for _, n := range v.Notes {
		if t := n.Text; strings.HasPrefix(t, "icon: ") || strings.HasPrefix(t, "folder ") || strings.HasPrefix(t, "make folders") || strings.HasPrefix(t, "cache") {
			fmt.Fprintf(a.Stdout, "  · %s\n", a.say().said(n))
		}
	}
}

// extrasRows adds the disk's extras and the caches on it to `info`.
func (a *App) extrasRows(ctx context.Context, field func(k, f string, args ...any), v ramdisk.Volume) {
	svc, err := a.service()
	if err != nil {
		return
	}
	if o, ok := svc.VolumeOptionsOf(v); ok && o.Phrase() != "" {
		field("Options", "%s", optionsPhrase(a.say(), o))
	}
	for _, c := range svc.Caches().List(ctx) {
		if svc.SameName(c.Disk, v.Name) {
			t := c.Target
			if t == cache.TMPDIRKey {
				t = "TMPDIR=" + c.Link
			}
			field("Cache", "%s", t)
		}
	}
}
