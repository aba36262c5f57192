package tray

import (
	"context"
	"rambar/settingsfile"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/ramdisk"
)

// ProgressFunc reports how far a long job has come: done of total units
// (bytes, files, steps; total 0 when unknown). It may be called from any
// goroutine, as often as the job likes; the tray throttles what it shows.
type ProgressFunc func(done, total int64)

// BenchmarkFunc measures one disk (against the home folder's disk) and
// returns what Benchmark This Disk shows.
type BenchmarkFunc func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (BenchmarkResult, error)

// BenchmarkResult is a benchmark as the menu shows it.
type BenchmarkResult struct {
	// Table is the result as a monospace table (bench.Report.Compact: at
	// most 72 columns).
	Table string
	// Headline is the result in a sentence, for a notification when no
	// window can be shown.
	Headline string
	// Chart is the SVG chart's path, offered as "Open Chart"; "" when it
	// could not be saved.
	Chart string
}

// Disks are the operations the menu runs through the use-case layer, the
// same ones the CLI runs (*disks.Menu satisfies it). Progress is reported
// as the CLI sees it; the tray shows "Saving… 45%".
type Disks interface {
	// Create makes a disk (a ready size, Custom…); the plan is made again
	// under the disk's lock from the facts of that moment. contents says
	// whether its contents are kept or mirror folder (Custom…'s choice);
	// ramdisk.Discard for a plain disk. inPlace mounts a Mirror disk over
	// its folder once loaded.
	Create(ctx context.Context, r ramdisk.Request, contents ramdisk.ContentMode, folder string, inPlace bool) (ramdisk.Volume, error)
	// MountPreset makes the disk a preset describes, restoring its contents
	// when it keeps them.
	MountPreset(ctx context.Context, p ramdisk.Preset, progress ramdisk.ProgressFunc) (ramdisk.Volume, error)
	// Eject ejects one disk, doing what must happen first (saving kept contents).
	Eject(ctx context.Context, v ramdisk.Volume, force bool) error
	// Save saves a kept disk's contents now (Save Now).
	Save(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) error
	// Keep starts keeping a plain disk's contents without ejecting it and
	// saves it now (Keep Contents; Mirror to a Folder…: folder is the empty
	// folder it is written into, "" keeps it in RAMBar's store).
	Keep(ctx context.Context, v ramdisk.Volume, folder string, progress ramdisk.ProgressFunc) error
	// Reclaim gives back memory that deleted files still pin (copy out,
	// remake, copy back) and returns how much was freed. Offered only when
	// Usage.ReclaimWorthwhile.
	Reclaim(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (freed ramdisk.Size, err error)
	// Kept reports whether a disk's contents are kept (saved and restored);
	// Save Now is offered only on such disks. Called on every refresh: cheap.
	Kept(v ramdisk.Volume) bool
	// Unsaved reports whether a kept disk has changes not yet saved; called
	// on every refresh, so it must be cheap. The menu marks such disks "•".
	Unsaved(v ramdisk.Volume) bool
	// SaveStatus is when a kept disk was last saved (zero: never, or not
	// kept) and how many paths changed since, as its change feed counts
	// them (-1: no feed counts them). Called on every refresh: cheap, no
	// scan.
	SaveStatus(v ramdisk.Volume) (saved time.Time, changed int)
	// Incomplete reports whether a disk's restore did not finish (RAMBar
	// was stopped in the middle): it holds part of its saved state and is
	// never saved over it. Called on every refresh: cheap.
	Incomplete(v ramdisk.Volume) bool
	// Whose says, for a disk this RAMBar did not make (another user's,
	// another data folder's, or one it does not know), whose it is in
	// words, after its name (Say says them); nothing (no Text) for one it
	// made. The menu marks such a disk, offers only ejecting it without
	// saving, and Eject All leaves it alone. Called on every refresh: cheap.
	Whose(v ramdisk.Volume) ramdisk.Said
	// Notices are things the user must hear about that belong to no
	// mounted disk (a reclaim that was stopped, with where its contents
	// wait and how to go on), one line each. Called on every refresh: cheap.
	Notices() []ramdisk.Said
	// MirrorConflicts is what the last Mirror write-back of a disk left as
	// conflicts (zero when it had none, or when a later save had none).
	// Called on every refresh: cheap.
	// n is how many paths kept both versions, in folder.
	MirrorConflicts(v ramdisk.Volume) (n int, folder string)
	// InUse is how many paths kept changing during the save that made a
	// kept disk's last snapshot, which was then taken while in use (its
	// files may not be one moment's state); 0 when it was consistent.
	// Called on every refresh: cheap.
	InUse(v ramdisk.Volume) int
	// KeptInFolder is how many changes a Mirror disk's folder keeps that
	// the disk lacks (0 for other disks): the menu offers Take Folder's
	// Changes while there are some. Called on every refresh: it must reuse
	// its answer rather than walk a large folder each time.
	KeptInFolder(v ramdisk.Volume) int
	// Refresh brings the changes kept in a Mirror disk's folder onto the
	// disk (Take Folder's Changes) and returns how many paths it took.
	Refresh(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (int, error)
	// InPlace is the folder a Mirror disk is mounted over ("" for none):
	// its submenu says "in place at FOLDER". Called on every refresh: cheap.
	InPlace(v ramdisk.Volume) string
}

// LoginItem turns launching at login on and off.
type LoginItem struct {
	Get func() (bool, error)
	Set func(on bool) error
}

// QuitChoice is the answer to "eject disks before quitting?".
type QuitChoice int

// Quit answers.
const (
	QuitCancel QuitChoice = iota // stay running
	QuitEjectAll
	QuitLeaveMounted
)

// QuitQuestion is what the quit dialog asks about: the disks an eject
// would lose, those it saves first (kept or mirrored), and those of
// another RAMBar, which stay mounted either way. QuitText words it.
type QuitQuestion struct {
	Lost, Saved, Others []string
}

// Ejected is how many disks Eject and Quit ejects.
func (q QuitQuestion) Ejected() int { return len(q.Lost) + len(q.Saved) }

// QuitText is the quit dialog's text: which disks are lost and which are
// saved when ejected.
func QuitText(p *i18n.Printer, q QuitQuestion) string {
	paras := []string{p.T("Eject %d RAM disks before quitting?", q.Ejected())}
	switch {
	case len(q.Lost) > 0 && len(q.Saved) == 0 && q.Ejected() == 1:
		paras = append(paras, p.T("%s's contents are lost when it is ejected.", q.Lost[0]))
	case len(q.Lost) > 0 && len(q.Saved) == 0:
		paras = append(paras, p.T("Their contents are lost when ejected: %s.", strings.Join(q.Lost, ", ")))
	case len(q.Lost) > 0:
		paras = append(paras, p.T("Lost when ejected: %s.", strings.Join(q.Lost, ", ")))
	}
	if len(q.Saved) > 0 {
		paras = append(paras, p.T("Saved first, and restored when made again: %s.", strings.Join(q.Saved, ", ")))
	}
	if len(q.Others) > 0 {
		paras = append(paras, p.T("Another RAMBar's, left mounted either way: %s.", strings.Join(q.Others, ", ")))
	}
	paras = append(paras, p.T("Left mounted, they keep holding memory."))
	return strings.Join(paras, "\n\n")
}

// NewDiskForm is what the Custom… dialog asks for.
type NewDiskForm struct {
	Name string
	Size string // as typed: "4G", "512M", "25%"
	FS   ramdisk.FileSystem
	// Contents is whether the disk's contents die with it (Discard), are
	// kept (saved and restored) or mirror Folder.
	Contents ramdisk.ContentMode
	Folder   string
	// InPlace: the Mirror disk is mounted over Folder once loaded, so the
	// folder's own path runs from memory.
	InPlace bool
}

// Dialogs are the windows the tray opens. Each call blocks until the user
// answers; the tray calls them off its event loop.
type Dialogs interface {
	// NewDisk asks for a name, size and file system, starting from form.
	// Before anything is made it shows the words of the plan that check
	// returns (memory committed now or as written, advice, warnings) or its
	// refusal, and lets the user change the answers. It returns the answers
	// and the plan the user confirmed, or an error wrapping
	// ramdisk.ErrCancelled.
	NewDisk(ctx context.Context, form NewDiskForm, fss []ramdisk.FileSystem, check func(NewDiskForm) (ramdisk.Plan, error)) (NewDiskForm, ramdisk.Plan, error)
	// Quit asks whether to eject n disks before quitting.
	Quit(ctx context.Context, q QuitQuestion) (QuitChoice, error)
	// Message shows a message (About RAMBar) until dismissed.
	Message(ctx context.Context, title, text string) error
	// Result shows text in a monospace font (a benchmark's table) until
	// dismissed. When action is not empty it is offered as a button ("Open
	// Chart"); acted reports whether the user pressed it.
	Result(ctx context.Context, title, text, action string) (acted bool, err error)
}

// Deps is everything the tray uses. Engine and Store are required; every
// optional hook left nil hides its menu item.
type Deps struct {
	Engine ramdisk.Engine
	Store  settingsfile.Store

	// Open shows a folder in Finder (`open`) or the desktop's file manager
	// (`xdg-open`), or a file (the benchmark's chart) in its default app.
	Open func(path string) error
	// CopyPath puts text on the clipboard (pbcopy; wl-copy or xclip). When it
	// is nil or fails, the path is shown in a notification instead.
	CopyPath func(text string) error
	// Notify shows a short notification. Errors are always reported this way.
	Notify func(title, text string) error
	// Dialogs opens the New RAM Disk, Quit and result windows.
	Dialogs Dialogs

	// Disks runs making, ejecting, saving and reclaiming; when nil the tray
	// makes and ejects plain disks with the Engine, and offers neither Save
	// Now nor Reclaim.
	Disks Disks

	// Optional features; nil hides the item.
	Benchmark BenchmarkFunc
	// EditPresets are the dialogs of the preset editor ("Edit Presets…",
	// and "Save as Preset…" on each disk); nil hides both.
	EditPresets   PresetDialogs
	LaunchAtLogin *LoginItem

	// Status, when set, is the status line the app sets while it does
	// something no click started (the save before logout); the menu shows
	// it at its top and in its title.
	Status *StatusLine

	// Started, when set, runs once off the event loop after the menu is
	// first shown (the app mounts its auto-mount presets there).
	Started func()
	// Stop, when set, ends the menu bar when closed, like Quit with disks
	// left mounted (the self-test's run of the real menu bar).
	Stop <-chan struct{}

	// Quit ends the process's UI loop (systray.Quit); set by the glue.
	Quit func()

	// Refresh is how often disks and memory are listed (default 2 s).
	// UsageEvery is how often Usage is measured when Caps.HeldIsCostly
	// (default 5 × Refresh); otherwise Usage is measured on every refresh.
	Refresh    time.Duration
	UsageEvery time.Duration
	// HostWait is how long Run waits on Linux for a tray host (a
	// StatusNotifierWatcher) that is not there yet (default 15 s).
	HostWait time.Duration

	// Version is shown in About RAMBar ("" reads "dev").
	Version string

	// Logf receives diagnostics (nil: none).
	Logf func(format string, args ...any)
	// Caches, when set, gives each disk a "Use for…" submenu of cache folders.
	Caches Caches
	// Updates, when set, is Check for Updates… (and its daily setting).
	Updates *Updates
	// Lang says the menu's and the windows' words in the user's language
	// (i18n.Match of the user's languages); nil is English.
	Lang *i18n.Printer
}

// defaultRefresh is the list interval when Deps.Refresh is zero.
const defaultRefresh = 2 * time.Second

func (d *Deps) features() featureSet {
	return featureSet{
		SaveNow:       d.Disks != nil,
		Reclaim:       d.Disks != nil,
		Benchmark:     d.Benchmark != nil,
		EditPresets:   d.EditPresets != nil,
		LaunchAtLogin: d.LaunchAtLogin != nil && d.LaunchAtLogin.Get != nil && d.LaunchAtLogin.Set != nil,
		Caches:        d.Caches != nil,
		Updates:       d.Updates != nil && d.Updates.Check != nil,
		UpdatesDaily:  d.Updates != nil && d.Updates.Check != nil && d.Updates.Daily,
	}
}
