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
	other.Whose, other.Incomplete = ramdisk.Plain("belongs to another user"), true
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

// TestDomainWordsInTheMenu: the domain packages' words the menu shows
// (what is known of a disk's maker, what a cache gains, the New RAM Disk
// window's plan and its notes) come through the printer: in German they
// are German, in English as the CLI says them.
func TestDomainWordsInTheMenu(t *testing.T) {
	de := i18n.For(language.German)
	other := measuredDisk(vol("Other", 2*ramdisk.GiB, ramdisk.TmpFS), 0, 0)
	other.Whose = ramdisk.Sayf("is another RAMBar's disk: it was made with %s",
		ramdisk.Sayf("the data folder %s of user %s (uid %s)", "/d", "ada", "501"))
	s := menuState{P: de, Disks: []diskState{other}, Caps: darwin, Features: featureSet{Caches: true},
		Caches: []CacheTarget{{Key: "chrome", Label: "Chrome cache", Path: "/h/chrome", Gain: "less SSD wear; page loads are network-bound, so little speed"},
			{Key: "npm", Label: "npm cache", Path: "/h/.npm", Gain: "npm install reads and writes many small files: some speed, refilled after every eject", OnDisk: "Work"}}}
	tips := map[string]string{}
	buildMenu(s).Walk(func(it Item) { tips[it.Key] = it.Tooltip })
	for key, want := range map[string]string{
		"disk/Other/whose":        "Other ist die Disk eines anderen RAMBar: Sie wurde erstellt mit Datenordner /d von Benutzer ada (UID 501)",
		"disk/Other/cache/chrome": "/h/chrome: weniger SSD-Verschleiß; Seitenaufrufe hängen am Netzwerk, also wenig Tempo",
		"disk/Other/cache/npm":    "jetzt auf Work",
	} {
		if tips[key] != want {
			t.Errorf("%s: tooltip %q, want %q", key, tips[key], want)
		}
	}

	p, err := ramdisk.NewPlan(ramdisk.Request{Name: "Huge", Size: 20 * ramdisk.GiB, Force: true},
		ramdisk.Facts{Caps: darwin, Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB, SwapTotal: ramdisk.GiB}})
	if err != nil {
		t.Fatal(err)
	}
	got := PlanTextIn(de, p)
	for _, w := range []string{"Huge: 20 GiB APFS, wächst beim Schreiben erstellen?", "• Warnung: erzwungen: 20 GiB würde RAM-Disks auf 20 GiB Speicher wachsen lassen"} {
		if !strings.Contains(got, w) {
			t.Errorf("German plan lacks %q:\n%s", w, got)
		}
	}
	if got, want := PlanText(p), "Create "+p.Summary()+"?\n"; !strings.HasPrefix(got, want) || !strings.Contains(got, "\n• Warning: forced: ") {
		t.Errorf("English plan %q", got)
	}
}

// TestPresetLineInEveryLanguage: the presets' list of Edit Presets… says
// how each keeps its contents in the menu's language (it was English
// inside translated lines), with the language's list separator; English
// as ramdisk.ContentsPhrase says it.
func TestPresetLineInEveryLanguage(t *testing.T) {
	p := ramdisk.Preset{Name: "Work", Size: "4G", Contents: ramdisk.Keep, SaveEvery: 300, Snapshots: 3, AutoMount: true}
	tests := []struct {
		lang language.Tag
		want string
	}{
		{language.English, "Work: 4G, kept, saved every 5 min, 3 snapshots, at login"},
		{language.German, "Work: 4G, behalten, alle 5 min gesichert, 3 Schnappschüsse, bei der Anmeldung"},
		{language.Japanese, "Work：4G、保持、5 min ごとに保存、スナップショット 3 個、ログイン時"},
	}
	for _, tt := range tests {
		if got := presetLine(i18n.For(tt.lang), p); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.lang, got, tt.want)
		}
	}
}

// TestNoticesInTheMenusLanguage: a notice that belongs to no disk (a
// stopped reclaim) is said in the menu's language, titled by its words up
// to its colon (a full-width one in Japanese).
func TestNoticesInTheMenusLanguage(t *testing.T) {
	n := ramdisk.Sayf("A reclaim of %s was stopped: its contents are safe in %s; run: rambar reclaim \"%s\" --resume", "Work", "/d/reclaim/Work", "Work")
	for _, tt := range []struct {
		lang  language.Tag
		title string
	}{
		{language.English, "⚠ A reclaim of Work was stopped"},
		{language.German, "⚠ Eine Rückgewinnung von Work wurde angehalten"},
		{language.Japanese, "⚠ Work の回収が中断されました"},
	} {
		m := buildMenu(menuState{P: i18n.For(tt.lang), Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings(), Notices: []ramdisk.Said{n}})
		if it, ok := m.Find("warn/notice/0"); !ok || it.Title != tt.title || !strings.Contains(it.Tooltip, "/d/reclaim/Work") {
			t.Errorf("%s: notice item %+v (found %v), want title %q", tt.lang, it, ok, tt.title)
		}
	}
}
