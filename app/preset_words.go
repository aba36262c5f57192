package main

import (
	"strings"

	"rambar/ramdisk"
	"rambar/tray"
)

// A preset's description in the user's language: a list of its settings,
// each one a message of the catalog. In English it is describePreset and
// ramdisk.ContentsPhrase, as they were.

// presetContents is how a preset keeps its contents, for `preset list`.
func presetContents(s speech, p ramdisk.Preset) string { return tray.PresetContents(s.p, p) }

// presetLine is the one-line summary add and edit print.
func presetLine(s speech, p ramdisk.Preset) string {
	if s.english() {
		return describePreset(p)
	}
	items := []string{s.Number(p.Size)}
	if p.FS != "" {
		items = append(items, p.FS.Label())
	}
	if p.Hidden {
		items = append(items, s.T("hidden"))
	}
	if p.AutoMount {
		items = append(items, s.T("mounts at login"))
	}
	items = append(items, s.T("contents: %s", presetContents(s, p)))
	if o := optionsPhrase(s, p.VolumeOptions()); o != "" {
		items = append(items, o)
	}
	if len(p.Caches) > 0 {
		items = append(items, s.T("caches %s", strings.Join(p.Caches, ", ")))
	}
	return strings.Join(items, s.listSep())
}
