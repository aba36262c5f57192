package tray

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

	"rambar/i18n"
	"rambar/ramdisk"
)

// pseudoState is a menu with every kind of line: disks kept, mirrored,
// busy, not made here, being saved, nearly full, swap, presets, updates.
func pseudoState(p *i18n.Printer) menuState {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	kept := measuredDisk(vol("Work", 8*ramdisk.GiB, ramdisk.APFS), 1536*ramdisk.MiB, 4*ramdisk.GiB)
	kept.Kept, kept.Unsaved, kept.Saved, kept.Changed, kept.InUse = true, true, now.Add(-90*time.Second), 3, 2
	kept.Conflicts = conflicts{N: 1, Folder: "/Users/ada/site"}
	kept.KeptInFolder, kept.InPlace = 4, "/Users/ada/site"
	full := measuredDisk(vol("Full", 1*ramdisk.GiB, ramdisk.TmpFS), 980*ramdisk.MiB, 980*ramdisk.MiB)
	full.Busy = &ramdisk.BusyError{}
	full.Usage.Pinned()
	other := measuredDisk(vol("Other", 2*ramdisk.GiB, ramdisk.TmpFS), 0, 0)
	other.Whose, other.Incomplete = "belongs to another user", true
	saving := measuredDisk(vol("Busy", 4*ramdisk.GiB, ramdisk.HFSPlus), ramdisk.GiB, 4*ramdisk.GiB)
	saving.Op, saving.Progress, saving.Kept = opSaving, ramdisk.Progress{BytesDone: 45, BytesTotal: 100}, true
	mem := gb16
	mem.SwapUsed, mem.Compressed = 3*ramdisk.GiB, ramdisk.GiB
	s := menuState{P: p, Now: now, Disks: []diskState{kept, full, other, saving}, Memory: mem, Caps: darwin,
		Settings: ramdisk.Settings{EjectOnQuit: ramdisk.QuitAsk, CheckForUpdatesDaily: true,
			Presets: []ramdisk.Preset{{Name: "Scratch", Size: "4G"}, {Name: "Work", Size: "8G"}}},
		Features: featureSet{SaveNow: true, Reclaim: true, Benchmark: true, EditPresets: true, LaunchAtLogin: true, Updates: true, UpdatesDaily: true},
		Creating: "Cache", CreatingProgress: ramdisk.Progress{BytesDone: 1, BytesTotal: 3}}
	return s
}

// bareSize is a line that is a size and nothing else ("4 GiB", New RAM
// Disk's ready sizes): data, not words.
var bareSize = regexp.MustCompile(`^[0-9.,]+ [KMGT]?i?B$`)

// TestMenuInThePseudoLocale: built in the pseudo-locale, every line of the
// menu came through the catalog (it is accented and ends with the closing
// mark, so nothing was cut either), and no English word is left in it.
func TestMenuInThePseudoLocale(t *testing.T) {
	m := buildMenu(pseudoState(i18n.For(i18n.Pseudo)))
	english := regexp.MustCompile(`\b(the|of|and|Eject|Save|Disk|disks?|memory|Settings|Quit|in)\b`)
	m.Walk(func(it Item) {
		if it.Separator || bareSize.MatchString(it.Title) {
			return
		}
		if !strings.Contains(it.Title, i18n.PseudoOpen) || !strings.HasSuffix(it.Title, i18n.PseudoClose) {
			t.Errorf("%s: %q did not come through the catalog whole", it.Key, it.Title)
		}
		if w := english.FindString(it.Title); w != "" {
			t.Errorf("%s: %q still says %q in English", it.Key, it.Title, w)
		}
	})
	if !strings.HasSuffix(m.Tooltip, i18n.PseudoClose) {
		t.Errorf("tooltip %q", m.Tooltip)
	}
}

// TestMenuInEveryLanguage: the same menu in each language RAMBar speaks has
// no line left in English (beyond names, sizes and commands), and numbers
// read as the language writes them.
func TestMenuInEveryLanguage(t *testing.T) {
	en := map[string]string{}
	buildMenu(pseudoState(nil)).Walk(func(it Item) { en[it.Key] = it.Title })
	for _, tag := range i18n.Languages[1:] {
		m := buildMenu(pseudoState(i18n.For(tag)))
		m.Walk(func(it Item) {
			if it.Separator || bareSize.MatchString(it.Title) || strings.HasPrefix(it.Key, "preset/Scratch") || strings.HasPrefix(it.Key, "preset/Work") {
				return
			}
			if it.Title == en[it.Key] && it.Title != "RAMBar" {
				t.Errorf("%s: %s is still %q", tag, it.Key, it.Title)
			}
		})
	}
	de := text(buildMenu(pseudoState(i18n.For(language.German))))
	for _, want := range []string{"Work — 1,5 GiB von 8 GiB, 4 GiB im Speicher, nicht gesichert", "Nach Updates suchen …", "Auswerfen"} {
		if !strings.Contains(de, want) {
			t.Errorf("German menu lacks %q:\n%s", want, de)
		}
	}
}
