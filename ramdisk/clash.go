package ramdisk

import "path/filepath"

// Choices are the options of one disk whose meanings can clash: how its
// contents are kept and where it is mounted. create's flags, preset add and
// edit's, keep's, a stored preset and the menu's create all come to these,
// and CheckChoices is the one rule that refuses the ones that cannot work
// together, before anything is made.
type Choices struct {
	// Contents is how its contents are kept (Discard, Keep, Mirror).
	Contents ContentMode
	// KeepAndMirror: both --keep and --mirror were given.
	KeepAndMirror bool
	// MirrorPath is the Mirror folder (absolute), "" for none.
	MirrorPath string
	// InPlace mounts the Mirror disk over its folder (--in-place).
	InPlace bool
	// MountPoint is the folder of the user's to mount it at (--mount-point).
	MountPoint string
	// CreateFolder makes a missing Mirror folder (--create-folder).
	CreateFolder bool
	// SetAsideKept mirrors over kept work in no folder (--set-aside-kept).
	SetAsideKept bool
	// Saving: a save interval or snapshot count was given (--save-every,
	// --snapshots).
	Saving bool
	// Compress restores the files compressed (--compress).
	Compress bool
}

// Clash is one combination of options that cannot work together, said as
// the one line that refuses it (and lists it in 'rambar help create').
type Clash struct {
	Why string
	hit func(Choices) bool
}

// clashes are the combinations CheckChoices refuses, in help order.
var clashes = []Clash{
	{"--keep and --mirror exclude each other: a disk's contents are kept in RAMBar's store or mirrored to a folder, not both",
		func(c Choices) bool { return c.KeepAndMirror }},
	{"--in-place goes with --mirror FOLDER: only a Mirror disk is mounted over its folder",
		func(c Choices) bool { return c.InPlace && c.Contents != Mirror }},
	{"--in-place and --mount-point exclude each other: in place, the Mirror folder itself is the mount point",
		func(c Choices) bool { return c.InPlace && c.MountPoint != "" }},
	{"--mount-point may not be the --mirror folder, inside it or around it: the disk would be mirrored into itself",
		func(c Choices) bool {
			return c.Contents == Mirror && c.MirrorPath != "" && c.MountPoint != "" && nested(c.MirrorPath, c.MountPoint)
		}},
	{"--create-folder goes with --mirror FOLDER: it makes a missing Mirror folder",
		func(c Choices) bool { return c.CreateFolder && c.Contents != Mirror }},
	{"--set-aside-kept goes with --mirror FOLDER: it sets kept work aside for a Mirror folder",
		func(c Choices) bool { return c.SetAsideKept && c.Contents != Mirror }},
	{"--snapshots and --save-every need --keep or --mirror: only kept or mirrored contents are saved",
		func(c Choices) bool { return c.Saving && c.Contents == Discard }},
	{"--compress needs --keep or --mirror: it applies to restored contents",
		func(c Choices) bool { return c.Compress && c.Contents == Discard }},
}

// Clashes lists the combinations CheckChoices refuses, in help order.
func Clashes() []Clash { return append([]Clash(nil), clashes...) }

// ClashError is a refused combination of options: bad input (it wraps
// ErrOption), one line naming the options and why.
type ClashError struct{ Clash Clash }

// Error is the one line that says which options clash and why.
func (e *ClashError) Error() string { return e.Clash.Why }

// Is makes a ClashError an ErrOption.
func (e *ClashError) Is(target error) bool { return target == ErrOption }

// CheckChoices refuses the first combination of c's options that cannot
// work together (a *ClashError). It reads nothing but c: it runs before
// anything is made or recorded.
func CheckChoices(c Choices) error {
	for _, cl := range clashes {
		if cl.hit(c) {
			return &ClashError{Clash: cl}
		}
	}
	return nil
}

// Choices are the preset's options, for CheckChoices. Saving options on
// a discarded disk are left to checkSaving, which says it in a preset's
// words.
func (p Preset) Choices() Choices {
	return Choices{Contents: p.Contents, MirrorPath: p.MirrorPath, InPlace: p.InPlace, MountPoint: p.MountPoint}
}

// nested reports whether a and b (absolute) are the same folder or one is
// inside the other, by their cleaned paths.
func nested(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	return within(a, b) || within(b, a)
}
