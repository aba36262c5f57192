package tray

import (
	"context"
	"time"

	"rambar/ramdisk"
)

// ProgressFunc reports how far a long job has come: done of total units
// (bytes, files, steps; total 0 when unknown). It may be called from any
// goroutine, as often as the job likes; the tray throttles what it shows.
type ProgressFunc func(done, total int64)

// SaveFunc saves a kept disk's contents now (the mirror feature). The tray
// shows "Saving… 45%" in the item and the title while it runs.
type SaveFunc func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) error

// KeptFunc reports whether a disk's contents are kept (saved and restored);
// Save Now is offered only on such disks. Called on every refresh: cheap.
type KeptFunc func(v ramdisk.Volume) bool

// UnsavedFunc reports whether a kept disk has changes not yet saved; it is
// called on every refresh, so it must be cheap. The menu marks such disks "•".
type UnsavedFunc func(v ramdisk.Volume) bool

// ReclaimFunc gives back memory that deleted files still pin (copy out,
// remake, copy back) and returns how much was freed. Offered only when
// Usage.ReclaimWorthwhile.
type ReclaimFunc func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (freed ramdisk.Size, err error)

// BenchmarkFunc measures one disk and returns a short summary for a dialog
// ("Sequential write 9.5 GB/s, 4 KB fsync 12 µs…").
type BenchmarkFunc func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (summary string, err error)

// MountPresetFunc makes the disk a preset describes, restoring its contents
// when it keeps them. When nil, the tray makes presets itself as plain disks.
type MountPresetFunc func(ctx context.Context, p ramdisk.Preset, progress ProgressFunc) (ramdisk.Volume, error)

// EjectFunc ejects one disk, doing what must happen first (saving kept
// contents). When nil, the tray calls Engine.Eject.
type EjectFunc func(ctx context.Context, v ramdisk.Volume, force bool) error

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

// NewDiskForm is what the Custom… dialog asks for.
type NewDiskForm struct {
	Name string
	Size string // as typed: "4G", "512M", "25%"
	FS   ramdisk.FileSystem
}

// Dialogs are the windows the tray opens. Each call blocks until the user
// answers; the tray calls them off its event loop.
type Dialogs interface {
	// NewDisk asks for a name, size and file system, starting from form.
	// Before anything is made it shows the words of the plan that check
	// returns (memory committed now or as written, advice, warnings) or its
	// refusal, and lets the user change the answers. It returns the plan the
	// user confirmed, or an error wrapping ramdisk.ErrCancelled.
	NewDisk(ctx context.Context, form NewDiskForm, fss []ramdisk.FileSystem, check func(NewDiskForm) (ramdisk.Plan, error)) (ramdisk.Plan, error)
	// Quit asks whether to eject n disks before quitting.
	Quit(ctx context.Context, n int) (QuitChoice, error)
	// Message shows a result (a benchmark's summary) until dismissed.
	Message(ctx context.Context, title, text string) error
}

// Deps is everything the tray uses. Engine and Store are required; every
// optional hook left nil hides its menu item.
type Deps struct {
	Engine ramdisk.Engine
	Store  ramdisk.Store

	// Open shows a folder in Finder (`open`) or the desktop's file manager
	// (`xdg-open`).
	Open func(path string) error
	// CopyPath puts text on the clipboard (pbcopy; wl-copy or xclip). When it
	// is nil or fails, the path is shown in a notification instead.
	CopyPath func(text string) error
	// Notify shows a short notification. Errors are always reported this way.
	Notify func(title, text string) error
	// Dialogs opens the New RAM Disk, Quit and result windows.
	Dialogs Dialogs

	// Optional features; nil hides the item.
	SaveNow SaveFunc
	Unsaved UnsavedFunc
	// Kept, when set, limits Save Now to kept disks; nil offers it on all.
	Kept        KeptFunc
	Reclaim     ReclaimFunc
	Benchmark   BenchmarkFunc
	MountPreset MountPresetFunc
	// EditPresets are the dialogs of the preset editor ("Edit Presets…",
	// and "Save as Preset…" on each disk); nil hides both.
	EditPresets   PresetDialogs
	LaunchAtLogin *LoginItem
	Eject         EjectFunc

	// Started, when set, runs once off the event loop after the menu is
	// first shown (the app mounts its auto-mount presets there).
	Started func()

	// Quit ends the process's UI loop (systray.Quit); set by the glue.
	Quit func()

	// Refresh is how often disks and memory are listed (default 2 s).
	// UsageEvery is how often Usage is measured when Caps.HeldIsCostly
	// (default 5 × Refresh); otherwise Usage is measured on every refresh.
	Refresh    time.Duration
	UsageEvery time.Duration

	// Logf receives diagnostics (nil: none).
	Logf func(format string, args ...any)
}

// DefaultRefresh is the list interval when Deps.Refresh is zero.
const DefaultRefresh = 2 * time.Second

func (d *Deps) features() Features {
	return Features{
		SaveNow:       d.SaveNow != nil,
		Reclaim:       d.Reclaim != nil,
		Benchmark:     d.Benchmark != nil,
		EditPresets:   d.EditPresets != nil,
		LaunchAtLogin: d.LaunchAtLogin != nil && d.LaunchAtLogin.Get != nil && d.LaunchAtLogin.Set != nil,
	}
}
