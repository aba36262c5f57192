package tray

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// text renders a menu one item per line, children indented, with flags:
// [x]/[ ] checkboxes, (off) disabled, ---- separators.
func text(m Menu) string {
	var b strings.Builder
	var walk func([]Item, string)
	walk = func(items []Item, ind string) {
		for _, it := range items {
			switch {
			case it.Separator:
				b.WriteString(ind + "----\n")
				continue
			case it.Checkbox && it.Checked:
				b.WriteString(ind + "[x] ")
			case it.Checkbox:
				b.WriteString(ind + "[ ] ")
			default:
				b.WriteString(ind)
			}
			b.WriteString(it.Title)
			if it.Disabled {
				b.WriteString(" (off)")
			}
			b.WriteString("\n")
			walk(it.Children, ind+"  ")
		}
	}
	walk(m.Items, "")
	return b.String()
}

var (
	gb16   = ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB, SwapTotal: 2 * ramdisk.GiB}
	linux  = ramdisk.Caps{OS: "linux", FileSystems: []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.ZRAM}, MountRoot: "/mnt/rambar"}
	darwin = ramdisk.Caps{OS: "darwin", FileSystems: []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus}, MountRoot: "/Volumes",
		HeldIsCostly: true, LazyThreshold: 4 * ramdisk.GiB}
)

func vol(name string, size ramdisk.Size, fs ramdisk.FileSystem) ramdisk.Volume {
	return ramdisk.Volume{Name: name, MountPoint: "/Volumes/" + name, FS: fs, Size: size, Allocation: ramdisk.AllocationFor(fs, size), Managed: true}
}

func measuredDisk(v ramdisk.Volume, used, held ramdisk.Size) diskState {
	return diskState{Volume: v, Measured: true, Usage: ramdisk.Usage{Size: v.Size, Used: used, Free: v.Size - used, Held: held, HeldKnown: true}}
}

func TestBuild(t *testing.T) {
	scratch := measuredDisk(vol("Scratch", 8*ramdisk.GiB, ramdisk.APFS), 1229*ramdisk.MiB, 4198*ramdisk.MiB)
	build := measuredDisk(vol("Build", 2*ramdisk.GiB, ramdisk.HFSPlus), 512*ramdisk.MiB, 2*ramdisk.GiB)
	full := measuredDisk(vol("Full", 1*ramdisk.GiB, ramdisk.TmpFS), 950*ramdisk.MiB, 950*ramdisk.MiB)
	busy := scratch
	busy.Busy = &ramdisk.BusyError{Volume: "Scratch", Holders: []ramdisk.Holder{{PID: 41, Command: "vim"}, {PID: 7, Command: "less"}}}
	saving := scratch
	saving.Op, saving.Progress = opSaving, jobAt(45, 100)
	unsaved := scratch
	unsaved.Unsaved, unsaved.Kept = true, true
	pinned := measuredDisk(vol("Scratch", 8*ramdisk.GiB, ramdisk.APFS), 1*ramdisk.GiB, 3994*ramdisk.MiB)
	pinned.Kept = true
	reclaiming := pinned
	reclaiming.Op, reclaiming.Progress = opReclaiming, jobAt(3, 10)
	notYet := diskState{Volume: vol("Fresh", 4*ramdisk.GiB, ramdisk.APFS)}
	usageErr := diskState{Volume: vol("Odd", 4*ramdisk.GiB, ramdisk.APFS), Measured: true, UsageErr: errors.New("footprint: no such process")}
	all := featureSet{SaveNow: true, Reclaim: true, Benchmark: true, EditPresets: true, LaunchAtLogin: true}

	tests := []struct {
		name    string
		s       menuState
		want    []string // lines (substrings) that must be in the menu text
		absent  []string // substrings that must not be
		title   string
		icon    Icon
		tooltip string
	}{
		{
			name: "no disks",
			s:    menuState{Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()},
			want: []string{"No RAM Disks (off)\n", "New RAM Disk\n  1 GiB\n  2 GiB\n  4 GiB\n  8 GiB\n  ----\n  Custom…\n",
				"RAM disks hold 0 B of 16 GiB memory; 8 GiB free, no swap in use\n", "Eject All (off)", "  [ ] Show Memory in Menu Bar", "About RAMBar\n", "Quit RAMBar"},
			absent:  []string{"Presets", "Launch at Login", "⚠", "grows as written"},
			tooltip: "RAMBar: no RAM disks",
		},
		{
			name: "several disks on a Mac",
			s:    menuState{Disks: []diskState{build, scratch}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			want: []string{
				"Build — 512 MiB of 2 GiB, 2 GiB in memory\n",
				"  2 GiB HFS+ at /Volumes/Build (off)\n  In memory: all 2 GiB from the start, until ejected (off)\n",
				"Scratch — 1.2 GiB of 8 GiB, 4.1 GiB in memory\n",
				"  8 GiB APFS at /Volumes/Scratch (off)\n  In memory: grows as files are written; deleting files gives none back (off)\n",
				"  2.9 GiB held by deleted files (off)",
				"  Open\n  Copy Path\n  ----\n  Eject\n",
				"RAM disks hold 6.1 GiB of 16 GiB memory",
				"  1 GiB, committed now\n  2 GiB, committed now\n  4 GiB, grows as written\n  8 GiB (not enough memory) (off)\n",
				"Eject All\n",
			},
			absent:  []string{"No RAM Disks", "1.5 GiB held by deleted files", "Force Eject", "Save Now", "Reclaim", "Benchmark", "Eject All (off)", "Preset", "unsaved"},
			tooltip: "RAMBar: 2 RAM disks, 6.1 GiB held",
		},
		{
			name:   "busy eject offers Force Eject and names holders",
			s:      menuState{Disks: []diskState{busy}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			want:   []string{"  Eject\n  In use by vim (pid 41), less (pid 7) (off)\n  Force Eject\n"},
			absent: []string{"Force Eject (off)"},
		},
		{
			name: "swapping",
			s:    menuState{Disks: []diskState{build}, Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB, SwapUsed: 1229 * ramdisk.MiB}, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			want: []string{"RAM disks hold 2 GiB of 16 GiB memory; 0 B free, 1.2 GiB of swap in use\n" +
				"If every RAM disk fills up they hold 2 GiB, 12% of memory\n⚠ Swapping: RAM disks add to memory pressure\n"},
			icon: IconWarning,
		},
		{
			name: "nearly full",
			s:    menuState{Disks: []diskState{full}, Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()},
			want: []string{"Full — 950 MiB of 1 GiB, 950 MiB in memory\n  1 GiB tmpfs at /Volumes/Full (off)\n  In memory: grows as files are written, shrinks as they are deleted (off)\n", "  ⚠ 93% full (off)", "⚠ Full is 93% full\n"},
			icon: IconWarning,
		},
		{
			name: "errors: list, memory and usage",
			s: menuState{Disks: []diskState{usageErr}, ListErr: errors.New("findmnt: exit status 1; stderr: boom"),
				MemoryErr: errors.New("read /proc/meminfo: permission denied"), Caps: darwin, Settings: ramdisk.DefaultSettings()},
			want: []string{"Odd — 4 GiB, usage unknown\n", "  Can't measure: footprint: no such process (off)",
				"Can't read RAM disks: findmnt: exit status 1\n", "RAM disks hold 0 B; memory unknown\n",
				"  8 GiB, grows as written\n"},
		},
		{
			name:  "saving progress in item and title",
			s:     menuState{Disks: []diskState{saving}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			want:  []string{"Scratch — Saving… 45%\n", "  Saving… 45% (off)\n", "  Eject (off)\n", "  Benchmark This Disk (off)"},
			title: "Saving… 45%",
		},
		{
			name: "unsaved mark",
			s:    menuState{Disks: []diskState{unsaved}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			want: []string{"• Scratch — 1.2 GiB of 8 GiB, 4.1 GiB in memory, unsaved\n", "  • Unsaved: changed since the last save (Save Now, or autosave, keeps them) (off)\n", "  Save Now (unsaved changes)\n"},
		},
		{
			name:   "reclaim offered",
			s:      menuState{Disks: []diskState{pinned}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			want:   []string{"  Reclaim 2.9 GiB\n", "  Save Now\n", "  Benchmark This Disk\n"},
			absent: []string{"Reclaim 2.9 GiB (off)"},
		},
		{
			name:   "save offered only on kept disks",
			s:      menuState{Disks: []diskState{scratch}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			want:   []string{"  Benchmark This Disk\n"},
			absent: []string{"Save Now"},
		},
		{
			name:   "reclaim not offered when little is pinned",
			s:      menuState{Disks: []diskState{build}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			absent: []string{"Reclaim"},
		},
		{
			name:  "reclaim in progress",
			s:     menuState{Disks: []diskState{reclaiming}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			want:  []string{"Scratch — Reclaiming… 30%\n", "  Reclaiming… 30% (off)"},
			title: "Reclaiming… 30%",
		},
		{
			name:  "memory in the title",
			s:     menuState{Disks: []diskState{scratch}, Memory: gb16, Caps: darwin, Settings: ramdisk.Settings{ShowMemoryInTitle: true, EjectOnQuit: ramdisk.QuitAsk}},
			want:  []string{"  [x] Show Memory in Menu Bar"},
			title: "4.1 GiB",
		},
		{
			name: "not yet measured: upfront disk counts at its size",
			s:    menuState{Disks: []diskState{notYet, {Volume: vol("Small", 1*ramdisk.GiB, ramdisk.APFS)}}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			want: []string{"Fresh — 4 GiB\n", "Small — 1 GiB\n", "RAM disks hold 1 GiB of 16 GiB"},
		},
		{
			name: "creating",
			s:    menuState{Creating: "RAMDisk-2", Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()},
			want: []string{"Creating RAMDisk-2… (off)\n"}, absent: []string{"No RAM Disks"},
		},
		{
			name: "creating a preset, restoring its contents",
			s:    menuState{Creating: "Kept", CreatingProgress: jobAt(3, 4), Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()},
			want: []string{"Creating Kept… 75% (off)\n"},
		},
		{
			name: "presets and launch at login",
			s: menuState{Disks: []diskState{scratch}, Memory: gb16, Caps: darwin, Features: all, LaunchAtLogin: true,
				Settings: ramdisk.Settings{EjectOnQuit: ramdisk.QuitAsk, Presets: []ramdisk.Preset{{Name: "Scratch", Size: "8G"}, {Name: "Cache", Size: "25%"}}}},
			want: []string{"Presets\n  Scratch (8G), mounted (off)\n  Cache (25%)\n  ----\n  Edit Presets…\n", "  [x] Launch at Login",
				"  Open\n  Copy Path\n  Save as Preset…\n"},
		},
		{
			name: "presets feature with no presets",
			s:    menuState{Memory: gb16, Caps: linux, Features: all, Settings: ramdisk.DefaultSettings()},
			want: []string{"Presets\n  No Presets (off)\n  ----\n  Edit Presets…\n", "  [ ] Launch at Login"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := buildMenu(tt.s)
			got := text(m)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("menu lacks %q; menu:\n%s", w, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("menu has %q; menu:\n%s", a, got)
				}
			}
			if m.Title != tt.title {
				t.Errorf("title = %q, want %q", m.Title, tt.title)
			}
			if m.Icon != tt.icon {
				t.Errorf("icon = %v, want %v", m.Icon, tt.icon)
			}
			if tt.tooltip != "" && m.Tooltip != tt.tooltip {
				t.Errorf("tooltip = %q, want %q", m.Tooltip, tt.tooltip)
			}
			keys := map[string]bool{}
			m.Walk(func(it Item) {
				if keys[it.Key] {
					t.Errorf("key %q used twice", it.Key)
				}
				keys[it.Key] = true
			})
		})
	}
}

func TestBuildIsStable(t *testing.T) {
	s := menuState{Disks: []diskState{measuredDisk(vol("A", ramdisk.GiB, ramdisk.TmpFS), 0, 0)}, Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()}
	if a, b := text(buildMenu(s)), text(buildMenu(s)); a != b {
		t.Fatalf("two builds of one state differ:\n%s\n%s", a, b)
	}
}

func TestFirstFreeName(t *testing.T) {
	tests := []struct {
		taken []string
		want  string
	}{
		{nil, "RAMDisk"},
		{[]string{"Scratch"}, "RAMDisk"},
		{[]string{"RAMDisk"}, "RAMDisk-2"},
		{[]string{"ramdisk", "RAMDisk-2"}, "RAMDisk-3"},
		{[]string{"RAMDisk-2"}, "RAMDisk"},
		{[]string{"RAMDisk", "RAMDisk-3"}, "RAMDisk-2"},
	}
	for _, tt := range tests {
		if got := firstFreeName("RAMDisk", tt.taken); got != tt.want {
			t.Errorf("FirstFreeName(%q) = %q, want %q", tt.taken, got, tt.want)
		}
	}
}

func TestProgressPercent(t *testing.T) {
	for _, tt := range []struct {
		p    ramdisk.Progress
		want int
	}{{jobAt(0, 0), 100}, {jobAt(45, 100), 45}, {jobAt(3, 10), 30}, {jobAt(11, 10), 100}, {jobAt(1<<40, 1<<41), 50}} {
		if got := tt.p.Percent(); got != tt.want {
			t.Errorf("%v.Percent() = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestPlanTextAndRefusal(t *testing.T) {
	f := ramdisk.Facts{Caps: darwin, Memory: gb16}
	p, err := checkForm(NewDiskForm{Name: "Scratch", Size: "3G", FS: ramdisk.APFS}, f)
	if err != nil {
		t.Fatal(err)
	}
	txt := PlanText(p)
	for _, w := range []string{"Create Scratch: 3 GiB APFS, commits 3 GiB now?", "takes all 3 GiB of memory as soon as it is made", "Tip: a 4 GiB disk costs less"} {
		if !strings.Contains(txt, w) {
			t.Errorf("plan text lacks %q:\n%s", w, txt)
		}
	}
	p, err = checkForm(NewDiskForm{Name: "Big", Size: "8G", FS: ramdisk.APFS}, f)
	if err != nil {
		t.Fatal(err)
	}
	if txt := PlanText(p); !strings.Contains(txt, "grows as written") || !strings.Contains(txt, "takes memory only as files are written") {
		t.Errorf("8G plan text: %s", txt)
	}
	for _, bad := range []NewDiskForm{{Name: "a/b", Size: "1G"}, {Name: "X", Size: "0"}, {Name: "X", Size: "-1G"}, {Name: "X", Size: "3.5Q"}, {Name: "X", Size: "15G"}} {
		_, err := checkForm(bad, f)
		if err == nil {
			t.Errorf("Check(%+v) accepted", bad)
			continue
		}
		msg := PlanRefusal(err)
		if bad.Size == "15G" && !strings.HasPrefix(msg, "This machine can't hold that disk") {
			t.Errorf("refusal for %v: %s", bad, msg)
		}
		if strings.Contains(msg, "--force") {
			t.Errorf("refusal mentions a CLI flag: %s", msg)
		}
	}
}

func Example_diskLine() {
	d := measuredDisk(vol("Scratch", 8*ramdisk.GiB, ramdisk.APFS), 1229*ramdisk.MiB, 4198*ramdisk.MiB)
	fmt.Println(diskLine(nil, d))
	// Output: Scratch — 1.2 GiB of 8 GiB, 4.1 GiB in memory
}

func TestIncompleteRestoreIsShown(t *testing.T) {
	d := measuredDisk(vol("Work", 4*ramdisk.GiB, ramdisk.TmpFS), 10*ramdisk.MiB, 10*ramdisk.MiB)
	d.Incomplete, d.Kept = true, true
	got := text(buildMenu(menuState{Disks: []diskState{d}, Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings(),
		Features: featureSet{SaveNow: true}}))
	for _, want := range []string{"Work (restore incomplete) — ", "  ⚠ Restore incomplete: its saved state is kept, not saved over (off)\n",
		"  Eject Without Saving (the saved copy is kept)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("menu lacks %q:\n%s", want, got)
		}
	}
}

// TestSaveTakenInUseIsShown: a kept disk whose last snapshot was taken
// while in use says so in its submenu; a consistent one says nothing.
func TestSaveTakenInUseIsShown(t *testing.T) {
	d := measuredDisk(vol("Mail", 4*ramdisk.GiB, ramdisk.TmpFS), 10*ramdisk.MiB, 10*ramdisk.MiB)
	d.Kept, d.InUse = true, 3
	menu := func() string {
		return text(buildMenu(menuState{Disks: []diskState{d}, Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings(),
			Features: featureSet{SaveNow: true}}))
	}
	if got, want := menu(), "  ⚠ Last save taken while in use: 3 paths kept changing (off)\n"; !strings.Contains(got, want) {
		t.Errorf("menu lacks %q:\n%s", want, got)
	}
	if d.InUse = 0; strings.Contains(menu(), "while in use") {
		t.Errorf("a consistent save is shown as taken in use:\n%s", menu())
	}
}

func TestNoticesAreWarnings(t *testing.T) {
	n := "A reclaim of Work was stopped: its contents are safe in /data/reclaim/Work-20261201T080000Z; run: rambar reclaim \"Work\" --resume"
	m := buildMenu(menuState{Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings(), Notices: []ramdisk.Said{ramdisk.Plain(n)}})
	it, ok := m.Find("warn/notice/0")
	if !ok || it.Title != "⚠ A reclaim of Work was stopped" || it.action.Text != n || m.Icon != IconWarning {
		t.Errorf("notice item %+v (found %v), icon %v", it, ok, m.Icon)
	}
}

// TestGlanceRowsAboutAndSettings: what issue 14's menu must read at a
// glance, case by case.
func TestGlanceRowsAboutAndSettings(t *testing.T) {
	build := measuredDisk(vol("Build", 4*ramdisk.GiB, ramdisk.APFS), 300*ramdisk.MiB, 300*ramdisk.MiB)
	unsaved := build
	unsaved.Unsaved, unsaved.Kept = true, true
	zram := measuredDisk(vol("Packed", ramdisk.GiB, ramdisk.ZRAM), 100*ramdisk.MiB, 40*ramdisk.MiB)
	noHeld := build
	noHeld.Usage.HeldKnown = false
	all := featureSet{SaveNow: true, Reclaim: true, Benchmark: true, EditPresets: true, LaunchAtLogin: true}
	for _, c := range []struct {
		name         string
		s            menuState
		want, absent []string
	}{
		{"size, use and memory in the row; the allocation once, in the submenu",
			menuState{Disks: []diskState{build, zram}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			[]string{"Build — 300 MiB of 4 GiB, 300 MiB in memory\n  4 GiB APFS at /Volumes/Build (off)\n  In memory: grows as files are written; deleting files gives none back (off)\n",
				"Packed — 100 MiB of 1 GiB, 40 MiB in memory\n  1 GiB zram (compressed) at /Volumes/Packed (off)\n  In memory: compressed, grows as files are written; Eject gives it back (off)\n"},
			[]string{"held"}},
		{"held memory not measurable: no memory figure",
			menuState{Disks: []diskState{noHeld}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			[]string{"Build — 300 MiB of 4 GiB\n"}, []string{"in memory\n"}},
		{"unsaved said in the row and explained in the submenu",
			menuState{Disks: []diskState{unsaved}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings(), Features: all},
			[]string{"• Build — 300 MiB of 4 GiB, 300 MiB in memory, unsaved\n", "  • Unsaved: changed since the last save (Save Now, or autosave, keeps them) (off)\n"}, nil},
		{"the memory summary is information, not a disabled item",
			menuState{Disks: []diskState{build}, Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()},
			[]string{"RAM disks hold 300 MiB of 16 GiB memory; 8 GiB free, no swap in use\nIf every RAM disk fills up"},
			[]string{"memory; 8 GiB free, no swap in use (off)"}},
		{"Settings and About",
			menuState{Memory: gb16, Caps: darwin, Features: all, LaunchAtLogin: true,
				Settings: ramdisk.Settings{ShowMemoryInTitle: true, EjectOnQuit: ramdisk.QuitLeave}},
			[]string{"Settings\n  [x] Show Memory in Menu Bar\n  [x] Launch at Login\n  ----\n  When Quitting with Disks Mounted: (off)\n" +
				"  [ ] Ask Whether to Eject Disks\n  [ ] Eject Disks (kept ones are saved first)\n  [x] Leave Disks Mounted\n  ----\n" +
				"  [ ] Save Kept Disks Continuously\n  Autosave: kept disks, at their own interval, while RAMBar runs\nAbout RAMBar\n----\nQuit RAMBar\n"},
			[]string{"Settings…", "About RAMBar…"}},
		{"no login item; quitting asks by default",
			menuState{Memory: gb16, Caps: linux, Settings: ramdisk.Settings{}},
			[]string{"Settings\n  [ ] Show Memory in Menu Bar\n  ----\n", "  [x] Ask Whether to Eject Disks\n  [ ] Eject Disks"},
			[]string{"Launch at Login"}},
	} {
		got := text(buildMenu(c.s))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: menu lacks %q; menu:\n%s", c.name, w, got)
			}
		}
		for _, a := range c.absent {
			if strings.Contains(got, a) {
				t.Errorf("%s: menu has %q; menu:\n%s", c.name, a, got)
			}
		}
	}
	m := buildMenu(menuState{Memory: gb16, Caps: darwin, Settings: ramdisk.DefaultSettings()})
	for key, kind := range map[string]actionKind{"memory": actExplain, "about": actAbout, "quit/eject": actSetQuit, "autosave": actExplain} {
		if it, ok := m.Find(key); !ok || it.action.Kind != kind || it.Disabled {
			t.Errorf("%s: %+v, want an enabled item doing %v", key, it, kind)
		}
	}
	if txt := aboutText(nil, "1.4.0"); !strings.HasPrefix(txt, "RAMBar 1.4.0\n") || !strings.Contains(txt, "rambar help") || !strings.Contains(txt, HelpURL) ||
		!strings.Contains(txt, ReleaseURL) || !strings.Contains(txt, HomebrewInstall) || !strings.Contains(txt, "MIT License") {
		t.Errorf("about: %q", txt)
	}
}

// TestConflictsAndStatusLine: a Mirror write-back's conflicts on the disk's
// entry (clicked, the folder opens) and the status line the app sets at
// the session's end, at the menu's top and in its title.
func TestConflictsAndStatusLine(t *testing.T) {
	site := measuredDisk(vol("Site", ramdisk.GiB, ramdisk.TmpFS), 10*ramdisk.MiB, 10*ramdisk.MiB)
	conflicted := site
	conflicted.Conflicts = conflicts{N: 3, Folder: "/home/me/site"}
	one := site
	one.Conflicts = conflicts{N: 1, Folder: "/home/me/site"}
	base := menuState{Memory: gb16, Caps: linux, Settings: ramdisk.DefaultSettings()}
	tests := []struct {
		name         string
		disks        []diskState
		status       string
		progress     ramdisk.Progress
		want, absent []string
		title        string
	}{
		{name: "no conflicts", disks: []diskState{site}, absent: []string{"conflict", "Saving"}},
		{name: "conflicts", disks: []diskState{conflicted}, want: []string{"Site — 10 MiB of 1 GiB, 10 MiB in memory\n  1 GiB", "  ⚠ 3 conflicts in /home/me/site\n"}},
		{name: "one conflict", disks: []diskState{one}, want: []string{"  ⚠ 1 conflict in /home/me/site\n"}},
		{name: "saving before logout", disks: []diskState{site}, status: "Saving before logout…",
			want: []string{"Saving before logout… (off)\nSite — "}, title: "Saving before logout…"},
		{name: "with progress", status: "Saving before logout…", progress: jobAt(9, 20),
			want: []string{"Saving before logout… 45% (off)\nNo RAM Disks"}, title: "Saving before logout… 45%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base
			s.Disks, s.Status, s.StatusProgress = tt.disks, tt.status, tt.progress
			m := buildMenu(s)
			got := text(m)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("menu lacks %q:\n%s", w, got)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(got, a) {
					t.Errorf("menu has %q:\n%s", a, got)
				}
			}
			if m.Title != tt.title {
				t.Errorf("title %q, want %q", m.Title, tt.title)
			}
			if it, ok := m.Find("disk/Site/conflicts"); ok && (it.action.Kind != actOpenFolder || it.action.Text != "/home/me/site" || it.Disabled) {
				t.Errorf("conflicts item %+v: want it to open the folder", it)
			}
		})
	}
}
