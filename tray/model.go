package tray

import (
	"strings"
	"time"

	"rambar/i18n"
	"rambar/ramdisk"
)

// actionKind is what clicking a menu item does.
type actionKind int

// The actions a menu item can carry.
const (
	actNone               actionKind = iota // an informational line
	actOpen                                 // open the disk in Finder or the file manager
	actOpenFolder                           // open a folder (a Mirror folder with conflicts)
	actCopyPath                             // copy the mount point to the clipboard
	actEject                                // eject one disk
	actForceEject                           // eject one disk although it is busy
	actSaveNow                              // save a kept disk's contents now
	actReclaim                              // give back memory pinned by deleted files
	actBenchmark                            // benchmark one disk
	actNewSize                              // make a disk of a ready size
	actNewCustom                            // ask for name, size and file system
	actMountPreset                          // make the disk a preset describes
	actEditPresets                          // open the presets editor
	actSaveAsPreset                         // make a preset from one disk
	actEjectAll                             // eject every disk
	actToggleTitle                          // show or hide the memory in the menu-bar title
	actToggleContinuous                     // save every kept disk continuously, or at its interval
	actToggleLogin                          // launch at login on or off
	actExplain                              // show the item's longer text as a notification
	actSetQuit                              // choose what quitting does with mounted disks
	actAbout                                // show the version and where to get help
	actQuit                                 // quit RAMBar
	actCacheToggle                          // put a cache folder on the disk, or back (Text: its key)
	actKeep                                 // keep a plain disk's contents from now on
	actMirrorTo                             // mirror a plain disk to a folder the user picks
	actRefresh                              // take the changes kept in a Mirror disk's folder onto it
	actCheckUpdates                         // Check for Updates…
	actToggleDailyUpdates                   // check for updates once a day, or not
)

// action is a menu item's effect, with its argument.
type action struct {
	Kind   actionKind
	Disk   string       // the volume's name, for per-disk actions
	Size   ramdisk.Size // ActNewSize
	Preset string       // ActMountPreset
	Text   string       // ActExplain; ActSetQuit: ramdisk.QuitAsk, QuitEject or QuitLeave; ActOpenFolder: the folder
}

// Item is one menu entry. Key is unique in the menu and stable across
// rebuilds, so the glue can update an item in place.
type Item struct {
	Key       string
	Title     string
	Tooltip   string
	Separator bool
	Checkbox  bool // a checkable item
	Checked   bool
	Disabled  bool
	action    action
	Children  []Item
}

// Icon names the menu-bar icon to show.
type Icon int

// Menu-bar icons.
const (
	IconNormal  Icon = iota // the plain template icon
	IconWarning             // swapping, or a disk nearly full
)

// Menu is everything the menu bar shows.
type Menu struct {
	Title   string // text beside the icon; empty for none
	Tooltip string
	Icon    Icon
	Items   []Item
}

// jobAt is how far a long job has come, done of total units (the one
// Progress type: ramdisk.Progress).
func jobAt(done, total int64) ramdisk.Progress {
	return ramdisk.Progress{BytesDone: done, BytesTotal: total}
}

// opKind is a long job running on one disk.
type opKind int

// Per-disk jobs.
const (
	opNone opKind = iota
	opEjecting
	opSaving
	opReclaiming
	opBenchmarking
	opKeeping    // Keep Contents, Mirror to a Folder…: the first save
	opRefreshing // Take Folder's Changes
)

func (o opKind) verb(p *i18n.Printer) string {
	switch o {
	case opEjecting:
		return p.T("Ejecting…")
	case opSaving:
		return p.T("Saving…")
	case opReclaiming:
		return p.T("Reclaiming…")
	case opBenchmarking:
		return p.T("Benchmarking…")
	case opKeeping:
		return p.T("Keeping…")
	case opRefreshing:
		return p.T("Taking Folder's Changes…")
	}
	return ""
}

// diskState is one mounted disk as the menu knows it.
type diskState struct {
	Volume ramdisk.Volume
	// Usage is the last measurement; Measured is false until there is one.
	Usage    ramdisk.Usage
	Measured bool
	UsageErr error
	// Busy is set when the last eject was refused; the menu then offers
	// Force Eject and names the holders.
	Busy *ramdisk.BusyError
	// Op is the long job running on this disk, with its progress.
	Op       opKind
	Progress ramdisk.Progress
	// Unsaved is true when a kept disk has changes not yet saved.
	Unsaved bool
	// Saved is when a kept disk was last saved (zero: unknown); Changed
	// how many paths changed since, by its change feed (-1: unknown).
	Saved   time.Time
	Changed int
	// Incomplete is true when the disk's restore did not finish.
	Incomplete bool
	// Whose is set (has Text) for a disk this RAMBar did not make
	// (Disks.Whose).
	Whose ramdisk.Said
	// InUse is how many paths kept changing during the save that made the
	// disk's last snapshot (taken while in use); 0 when it was consistent.
	InUse int
	// Kept is true when Save Now applies (Deps.Kept, or every disk when
	// that hook is not set).
	Kept bool
	// Conflicts is the last Mirror write-back's conflicts (Disks.MirrorConflicts).
	Conflicts conflicts
	// KeptInFolder counts the changes a Mirror disk's folder keeps that
	// the disk lacks (Disks.KeptInFolder).
	KeptInFolder int
	// InPlace is the folder the disk is mounted over (Disks.InPlace).
	InPlace string
}

// conflicts is a Mirror write-back's conflicts: how many paths kept both
// versions, in which folder.
type conflicts struct {
	N      int
	Folder string
}

// featureSet says which optional items exist (their Deps hooks are set).
type featureSet struct {
	SaveNow, Reclaim, Benchmark, EditPresets, LaunchAtLogin bool
	Caches                                                  bool // Deps.Caches: "Use for…"
	// Updates: Check for Updates… (Deps.Updates); UpdatesDaily: its
	// setting in Settings (a copy that updates itself).
	Updates, UpdatesDaily bool
}

// menuState is everything the menu is built from.
type menuState struct {
	// P says the menu's words in the user's language (nil: English).
	P *i18n.Printer
	// Now is when the disks were last looked at ("Saved 3 s ago").
	Now       time.Time
	Disks     []diskState
	ListErr   error // the last List failed; Disks are what was known before
	Memory    ramdisk.Memory
	MemoryErr error
	Caps      ramdisk.Caps
	Settings  ramdisk.Settings
	Features  featureSet
	// LaunchAtLogin is the current login-item state (Features.LaunchAtLogin).
	LaunchAtLogin bool
	// Creating names a disk being made, shown until it appears, with the
	// progress of restoring its contents (a preset that keeps them).
	Creating         string
	CreatingProgress ramdisk.Progress
	// Notices are warnings that belong to no mounted disk (Disks.Notices).
	Notices []ramdisk.Said
	// Caches are the cache targets "Use for…" offers (Features.Caches).
	Caches []CacheTarget
	// Status is what the app is doing that no click started (Deps.Status:
	// "Saving before logout…"), with its progress; "" for nothing.
	Status         string
	StatusProgress ramdisk.Progress
	// Updating is what Check for Updates… is doing ("Downloading RAMBar
	// 1.3.0…"), with its progress; "" when idle.
	Updating       string
	UpdateProgress ramdisk.Progress
}

// readySizes are the sizes "New RAM Disk" offers in one click.
var readySizes = []ramdisk.Size{1 * ramdisk.GiB, 2 * ramdisk.GiB, 4 * ramdisk.GiB, 8 * ramdisk.GiB}

// Held is the memory all disks hold, counting a disk not yet measured (or
// not measurable) at its committed size when it commits up front.
func (s menuState) Held() ramdisk.Size {
	var held ramdisk.Size
	for _, d := range s.Disks {
		held += ramdisk.HeldMemory(d.Volume, d.Usage, d.Measured && d.UsageErr == nil)
	}
	return held
}

// ownDisks counts the disks this RAMBar made (Eject All ejects those).
func (s menuState) ownDisks() int {
	n := 0
	for _, d := range s.Disks {
		if d.Whose.Text == "" {
			n++
		}
	}
	return n
}

// Disk returns the disk with that name.
func (s *menuState) Disk(name string) (*diskState, bool) {
	for i := range s.Disks {
		if s.Disks[i].Volume.Name == name {
			return &s.Disks[i], true
		}
	}
	return nil, false
}

// buildMenu turns the state into the menu. It is pure: same state, same menu.
func buildMenu(s menuState) Menu {
	var items []Item
	add := func(it ...Item) { items = append(items, it...) }
	sep := func(key string) Item { return Item{Key: "sep/" + key, Separator: true} }

	if s.Status != "" {
		add(Item{Key: "status", Title: statusText(s), Disabled: true})
	}
	if len(s.Disks) == 0 && s.Creating == "" {
		add(Item{Key: "none", Title: s.P.T("No RAM Disks"), Disabled: true})
	}
	var others []string
	for _, d := range s.Disks {
		if u := ramdisk.OtherUser(d.Whose); u != "" {
			others = append(others, u)
			continue
		}
		add(diskItem(s, d))
	}
	if len(others) > 0 {
		// Other users' disks are theirs: one line, nothing to click.
		add(Item{Key: "others", Title: s.P.T("%d RAM disks of other users", len(others)), Disabled: true,
			Tooltip: s.P.T("Mounted by %s: only they can open, save or eject them", strings.Join(uniq(others), ", "))})
	}
	if s.Creating != "" {
		t := s.P.T("Creating %s…", s.Creating)
		if s.CreatingProgress.BytesTotal > 0 {
			t = s.P.T("Creating %s… %d%%", s.Creating, s.CreatingProgress.Percent())
		}
		add(Item{Key: "creating", Title: t, Disabled: true})
	}
	if s.ListErr != nil {
		add(Item{Key: "listerr", Title: s.P.T("Can't read RAM disks: %s", short(s.P, s.ListErr)), Tooltip: s.P.Err(s.ListErr),
			action: action{Kind: actExplain, Text: s.P.Err(s.ListErr)}})
	}
	add(sep("disks"), newDiskItem(s))
	if pi, ok := presetsItem(s); ok {
		add(pi)
	}
	add(sep("memory"))
	add(memoryItems(s)...)
	add(sep("eject"), Item{Key: "ejectall", Title: s.P.T("Eject All"), Disabled: s.ownDisks() == 0, action: action{Kind: actEjectAll},
		Tooltip: s.P.T("Ejects the disks this RAMBar made; other RAMBars' disks are left alone")})
	add(sep("settings"), settingsItem(s), Item{Key: "about", Title: s.P.T("About RAMBar"), action: action{Kind: actAbout}})
	add(updatesItems(s)...)
	add(sep("quit"), Item{Key: "quit", Title: s.P.T("Quit RAMBar"), action: action{Kind: actQuit}})

	m := Menu{Items: items, Tooltip: tooltip(s)}
	if warnings(s) != nil {
		m.Icon = IconWarning
	}
	var title []string
	if s.Status != "" {
		title = append(title, statusText(s))
	}
	if s.Settings.ShowMemoryInTitle && len(s.Disks) > 0 {
		title = append(title, s.P.Size(s.Held()))
	}
	for _, d := range s.Disks {
		if d.Op != opNone && d.Op != opEjecting {
			title = append(title, progressText(s.P, d))
			break
		}
	}
	m.Title = strings.Join(title, " · ")
	return m
}

// statusText is the status line with its progress: "Saving before logout… 45%".
func statusText(s menuState) string {
	if s.StatusProgress.BytesTotal > 0 {
		return s.P.T("%s %d%%", s.Status, s.StatusProgress.Percent())
	}
	return s.Status
}

// quitChoices are the Settings' "When Quitting" choices.
var quitChoices = []struct{ value, title string }{
	{ramdisk.QuitAsk, i18n.N("Ask Whether to Eject Disks")},
	{ramdisk.QuitEject, i18n.N("Eject Disks (kept ones are saved first)")},
	{ramdisk.QuitLeave, i18n.N("Leave Disks Mounted")},
}

// autosaveHelp is what the Settings' autosave line says when clicked.
const autosaveHelp = "While RAMBar runs in the menu bar it saves each kept or mirrored disk at the interval it was made with " +
	"(rambar create NAME SIZE --keep --save-every 10m, or a preset's save interval), before the Mac sleeps and when it quits. " +
	"Save Now in a disk's submenu saves at once."

// continuousHelp is what Save Kept Disks Continuously does.
const continuousHelp = "Every kept or mirrored disk is saved seconds after it changes (about 2 s after the changes stop, every 3 s " +
	"under steady writing), reading only the folders that changed, whatever interval it was made with " +
	"(rambar keep NAME --save-every auto does it for one disk)."

// settingsItem is the Settings submenu: the menu-bar title, the login item,
// what quitting does with mounted disks, and how autosave works.
func settingsItem(s menuState) Item {
	sub := []Item{{Key: "showmem", Title: s.P.T("Show Memory in Menu Bar"), Checkbox: true,
		Checked: s.Settings.ShowMemoryInTitle, action: action{Kind: actToggleTitle}}}
	if s.Features.LaunchAtLogin {
		sub = append(sub, Item{Key: "login", Title: s.P.T("Launch at Login"), Checkbox: true, Checked: s.LaunchAtLogin, action: action{Kind: actToggleLogin}})
	}
	if s.Features.UpdatesDaily {
		sub = append(sub, Item{Key: "updates/daily", Title: s.P.T("Check for Updates Daily"), Checkbox: true,
			Checked: s.Settings.CheckForUpdatesDaily, action: action{Kind: actToggleDailyUpdates}})
	}
	sub = append(sub, Item{Key: "settings/sep1", Separator: true},
		Item{Key: "settings/quit", Title: s.P.T("When Quitting with Disks Mounted:"), Disabled: true})
	for _, q := range quitChoices {
		on := s.Settings.EjectOnQuit == q.value || (s.Settings.EjectOnQuit == "" && q.value == ramdisk.QuitAsk)
		sub = append(sub, Item{Key: "quit/" + q.value, Title: s.P.T(q.title), Checkbox: true, Checked: on,
			action: action{Kind: actSetQuit, Text: q.value}})
	}
	sub = append(sub, Item{Key: "settings/sep2", Separator: true},
		Item{Key: "continuous", Title: s.P.T("Save Kept Disks Continuously"), Checkbox: true, Checked: s.Settings.SaveContinuously,
			Tooltip: s.P.T(continuousHelp), action: action{Kind: actToggleContinuous}},
		Item{Key: "autosave", Title: s.P.T("Autosave: kept disks, at their own interval, while RAMBar runs"), Tooltip: s.P.T(autosaveHelp),
			action: action{Kind: actExplain, Text: s.P.T(autosaveHelp)}})
	return Item{Key: "settings", Title: s.P.T("Settings"), Children: sub}
}

// uniq keeps the first of each string, in order.
func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
