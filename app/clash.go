package main

import (
	"strings"

	"rambar/ramdisk"
)

// flagChoices are the options a command line gives (create, keep) that can
// clash, for ramdisk.CheckChoices, the one rule create, preset add and edit,
// keep, up and the menu share. mirror and mountPoint are the folders as
// given, made absolute; a flag the command does not declare counts as not
// given. keep has no --keep: there a disk without --mirror is kept.
func flagChoices(in *input, mirror, mountPoint string) ramdisk.Choices {
	on := func(name string) bool {
		if f, ok := in.cmd.flag(name); !ok || f.Kind != boolFlag {
			return false
		}
		return *in.Bool(name)
	}
	given := func(name string) bool {
		_, ok := in.cmd.flag(name)
		return ok && in.Set(name)
	}
	c := ramdisk.Choices{MirrorPath: mirror, MountPoint: mountPoint, InPlace: on("in-place"), CreateFolder: on("create-folder"),
		SetAsideKept: on("set-aside-kept"), Compress: on("compress"), Saving: given("snapshots") || given("save-every")}
	_, hasKeep := in.cmd.flag("keep")
	keep := on("keep") || !hasKeep && mirror == ""
	switch {
	case keep && mirror != "":
		c.Contents, c.KeepAndMirror = ramdisk.Mirror, true
	case mirror != "":
		c.Contents = ramdisk.Mirror
	case keep:
		c.Contents = ramdisk.Keep
	}
	return c
}

// clashLines are the combinations of options refused whose flags are all
// among flags, for the help of create, preset add and edit, and keep.
func clashLines(flags []flagSpec) []string {
	declared := map[string]bool{}
	for _, f := range flags {
		declared[f.Name] = true
	}
	var out []string
	for _, c := range ramdisk.Clashes() {
		all := true
		for _, w := range strings.Fields(c.Why) {
			if name, ok := strings.CutPrefix(strings.TrimRight(w, ":,."), "--"); ok && !declared[name] {
				all = false
			}
		}
		if all {
			out = append(out, c.Why)
		}
	}
	return out
}
