package ramdisk

import (
	"fmt"
	"strings"

	"rambar/i18n"
)

// Allocation is when a RAM disk takes its memory.
type Allocation string

// Allocation values; stable in `--json` output.
const (
	// AllocUpfront: the whole size is taken when the disk is attached (macOS
	// disk images under 4 GiB).
	AllocUpfront Allocation = "upfront"
	// AllocOnWrite: memory is taken as blocks are written (macOS disk images of
	// 4 GiB and over, tmpfs, zram).
	AllocOnWrite Allocation = "on-write"
)

// Phrase is the allocation as the menu and CLI say it.
func (a Allocation) Phrase() string {
	switch a {
	case AllocUpfront:
		return "committed now"
	case AllocOnWrite:
		return "grows as written"
	}
	return "allocation unknown"
}

// DiskImageLazyThreshold is the size from which a macOS ram:// disk takes
// memory only as it is written. Measured on macOS 26.4.1: 4,095 MiB took
// 4,202 MB at attach, 4,096 MiB took 9 MB (seed 000).
const DiskImageLazyThreshold = 4 * GiB

// Headroom is the memory a plan keeps free for the system: a disk that would
// push RAM disks' memory past physical memory minus Headroom is refused unless
// forced.
const Headroom = 2 * GiB

// AllocationFor says when a disk of this file system and size takes memory.
func AllocationFor(fs FileSystem, size Size) Allocation {
	if fs.IsDiskImage() && size < DiskImageLazyThreshold {
		return AllocUpfront
	}
	return AllocOnWrite
}

// Request is what the user asked for.
type Request struct {
	Name   string
	Size   Size
	FS     FileSystem // empty: the engine's default
	Hidden bool       // macOS: -nobrowse, not shown in Finder's sidebar
	Force  bool       // override memory refusals
	// Options are the disk's extras: noexec, folders, mount point, icon, Spotlight.
	Options VolumeOptions
}

// Facts are what the plan needs to know about the machine.
type Facts struct {
	Caps    Caps
	Memory  Memory
	Mounted []Volume // RAM disks mounted now
	Held    Size     // memory RAM disks already hold (sum of Usage.Held)
	// Taken lists names in use by any mounted volume (RAM disk or not), so a
	// new disk never lands at "NAME 1".
	Taken []string
}

// Severity orders plan notes.
type Severity string

// Note severities.
const (
	Info    Severity = "info"
	Advice  Severity = "advice"
	Warning Severity = "warning"
)

// Note is one thing the user must be told before the disk is made. Text is
// English; Format and Args are what it was made from, so a front end can
// say it in the user's language (the format is the catalog's key; an
// argument that is a Said is said first).
type Note struct {
	Severity Severity `json:"severity"`
	Text     string   `json:"text"`
	Format   string   `json:"-"`
	Args     []any    `json:"-"`
}

// newNote is a note made from a format and its arguments.
func newNote(s Severity, format string, args ...any) Note {
	return Note{Severity: s, Text: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// NoteOf is a note of another package's words (keeper's, for a plan that
// keeps or mirrors a disk): its English text, format and arguments.
func NoteOf(s Severity, said Said) Note {
	return Note{Severity: s, Text: said.Text, Format: said.Format, Args: said.Args}
}

// String is the note as the CLI and the menu show it: "Tip: …" for advice,
// "Warning: …" for warnings, the bare text otherwise.
func (n Note) String() string {
	switch n.Severity {
	case Advice:
		return "Tip: " + n.Text
	case Warning:
		return "Warning: " + n.Text
	}
	return n.Text
}

// Plan is everything an engine will do and everything the user must be told.
type Plan struct {
	Name       string     `json:"name"`
	Size       Size       `json:"size_bytes"`
	FS         FileSystem `json:"fs"`
	Hidden     bool       `json:"hidden"`
	Allocation Allocation `json:"allocation"`
	// CommitNow is the memory taken the moment the disk exists.
	CommitNow Size `json:"commit_now_bytes"`
	// MountPoint is where the engine will mount it.
	MountPoint string `json:"mount_point"`
	Forced     bool   `json:"forced"`
	Notes      []Note `json:"notes"`
	// Options are the extras asked for; Options.MountPoint, when set, is MountPoint.
	Options VolumeOptions `json:"-"`
	// CacheFallback, when set, is the folder the disk's cache targets fall
	// back to while it is not mounted. Before mounting, the engine leaves the
	// link MountPoint/FallbackLink -> CacheFallback on the file system below
	// the mount point (or fails Create), and at eject it keeps that folder
	// while the link leads to a folder that exists. Set only where mount
	// points stay (Caps.KeepsMountPoints, or a mount point of the user's).
	CacheFallback string `json:"-"`
}

// Summary is the plan's first line: "Scratch: 4 GiB APFS, grows as written".
func (p Plan) Summary() string {
	s := fmt.Sprintf("%s: %s %s, %s", p.Name, p.Size, p.FS.Label(), p.Allocation.Phrase())
	if p.Allocation == AllocUpfront {
		s = fmt.Sprintf("%s: %s %s, commits %s now", p.Name, p.Size, p.FS.Label(), p.CommitNow.Short())
	}
	return s
}

// NewPlan turns a request into a plan, or refuses it. Bad names and sizes
// are errors that wrap ErrName or ErrSize; a file system this OS cannot make
// wraps ErrUnsupported; a name already mounted wraps ErrExists; a disk that
// could let RAM disks grow past physical memory minus Headroom wraps
// ErrTooLarge unless r.Force. It counts what every mounted disk could grow
// to (Facts.GrowTo), not only what they hold now.
func NewPlan(r Request, f Facts) (Plan, error) {
	if err := ValidateName(r.Name); err != nil {
		return Plan{}, err
	}
	for _, v := range f.Mounted {
		if f.Caps.SameName(v.Name, r.Name) {
			if v.Name != r.Name {
				return Plan{}, i18n.Errorf("%w: %q at %s (names differ only in letter case here, which makes them one)", ErrExists, v.Name, v.MountPoint)
			}
			return Plan{}, i18n.Errorf("%w: %q at %s", ErrExists, r.Name, v.MountPoint)
		}
	}
	for _, t := range f.Taken {
		if f.Caps.SameName(t, r.Name) {
			return Plan{}, takenError(r.Name, t, f.Caps)
		}
	}
	if r.Size < MinSize {
		return Plan{}, i18n.Errorf("%w: %s is below the minimum of %s", ErrSize, r.Size, MinSize)
	}
	if r.Size > MaxSize {
		return Plan{}, i18n.Errorf("%w: %s is above the limit of %s", ErrSize, r.Size, MaxSize)
	}
	fs := r.FS
	if fs == "" && len(f.Caps.FileSystems) > 0 {
		fs = f.Caps.FileSystems[0]
	}
	if err := f.Caps.CheckFS(fs); err != nil {
		return Plan{}, err
	}
	p := Plan{
		Name:       r.Name,
		Size:       r.Size,
		FS:         fs,
		Hidden:     r.Hidden,
		Allocation: AllocationFor(fs, r.Size),
		Forced:     r.Force,
	}
	if f.Caps.MountRoot != "" {
		p.MountPoint = strings.TrimSuffix(f.Caps.MountRoot, "/") + "/" + r.Name
	}
	if limit := f.Memory.Physical * Size(f.Caps.TmpFSShare) / 100 / MiB * MiB; fs == TmpFS && limit > 0 && p.Size > limit {
		p.note(Warning, "a tmpfs can be at most %d%% of memory here: it will be %s, not %s", f.Caps.TmpFSShare, limit, r.Size)
		p.Size = limit
	}
	if err := f.Caps.CheckHidden(r.Hidden); err != nil {
		// As --spotlight: the disk is made, and the plan says the flag
		// changes nothing here.
		p.Hidden = false
		p.note(Warning, "--hidden has no effect on %s: only macOS's Finder hides a disk (file managers do not list disks mounted under %s anyway)",
			osLabel(f.Caps.OS), f.Caps.MountRoot)
	}
	if err := p.applyOptions(r.Options, f); err != nil {
		return Plan{}, err
	}
	if p.Allocation == AllocUpfront {
		p.CommitNow = r.Size
		p.note(Info, "takes all %s of memory as soon as it is made", r.Size)
		if r.Size >= 3*GiB {
			p.note(Advice, "a 4 GiB disk costs less until it is filled: under 4 GiB macOS commits the whole %s now, from 4 GiB it takes memory only as you write", r.Size)
		}
	} else {
		p.note(Info, "takes memory only as files are written, up to %s", p.Size)
	}
	if fs.IsDiskImage() {
		p.note(Info, "deleting files does not give memory back; eject (or Reclaim) does")
	}
	for _, x := range f.Caps.NeedsAdmin {
		if x == fs {
			p.note(Info, "%s needs administrator rights; you will be asked for your password", fs.Label())
		}
	}
	if f.Memory.Swapping() {
		p.note(Warning, "this machine is already using %s of swap: a RAM disk adds to memory pressure and may end up on the SSD anyway", f.Memory.SwapUsed.Short())
	}
	if err := p.memoryCheck(r, f); err != nil {
		return Plan{}, err
	}
	return p, nil
}

// note adds a note made from a format (English, the catalog's key) and its
// arguments.
func (p *Plan) note(s Severity, format string, args ...any) {
	p.Notes = append(p.Notes, newNote(s, format, args...))
}

// CheckFS refuses a file system this engine cannot make, naming the ones
// it can; the error wraps ErrUnsupported.
func (c Caps) CheckFS(fs FileSystem) error {
	if c.Supports(fs) {
		return nil
	}
	names := make([]string, len(c.FileSystems))
	for i, x := range c.FileSystems {
		names[i] = string(x)
	}
	return i18n.Errorf("file system %q is %w (%s): use one of %s", fs, ErrUnsupported, osLabel(c.OS), strings.Join(names, ", "))
}

// CheckHidden refuses hiding a disk where there is no Finder sidebar to hide
// it from (Linux); the error wraps ErrUnsupported.
func (c Caps) CheckHidden(hidden bool) error {
	if hidden && c.OS == "linux" {
		return i18n.Errorf("hiding a disk (--hidden) is %w (%s): only macOS's Finder hides one", ErrUnsupported, osLabel(c.OS))
	}
	return nil
}

// takenError refuses a name another volume is mounted under. macOS would
// mount the new disk as "NAME 1"; elsewhere the mount point is simply in use.
// taken is the name as it is mounted (the letter case may differ on macOS).
func takenError(name, taken string, c Caps) error {
	if c.OS == "darwin" {
		return i18n.Errorf("%w: %q (%s is mounted; macOS would silently mount it as %q)", ErrExists, name,
			strings.TrimSuffix(c.MountRoot, "/")+"/"+taken, name+" 1")
	}
	if c.MountRoot != "" {
		return i18n.Errorf("%w: %q (another volume is mounted at %s)", ErrExists, name, strings.TrimSuffix(c.MountRoot, "/")+"/"+taken)
	}
	return i18n.Errorf("%w: %q (another volume has that name)", ErrExists, name)
}

func osLabel(goos string) string {
	switch goos {
	case "darwin":
		return "macOS"
	case "linux":
		return "Linux"
	case "":
		return "this system"
	}
	return goos
}
