package ramdisk

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// HeldMemory is the memory one disk holds as far as is known: the measured
// Held when its usage is known (ok: measured without error), otherwise its
// whole size when it commits that up front, otherwise nothing. The CLI's
// list, the menu and every plan count held memory this way.
func HeldMemory(v Volume, u Usage, ok bool) Size {
	if ok && u.HeldKnown {
		return u.Held
	}
	if v.Allocation == AllocUpfront {
		return v.Size
	}
	return 0
}

// NewFacts is what NewPlan needs, from the engine's caps, the machine's
// memory, the disks mounted now and the memory they hold (HeldMemory summed).
// Taken is read from the mount root (TakenNames), so call it off any UI loop.
func NewFacts(c Caps, m Memory, mounted []Volume, held Size) Facts {
	return Facts{Caps: c, Memory: m, Mounted: mounted, Held: held, Taken: TakenNames(c.MountRoot)}
}

// Without returns the facts as if the disk named name were not mounted and
// did not hold held (a disk about to be made again: reclaim).
func (f Facts) Without(name string, held Size) Facts {
	var mounted []Volume
	for _, m := range f.Mounted {
		if m.Name != name {
			mounted = append(mounted, m)
		}
	}
	var taken []string
	for _, n := range f.Taken {
		if !f.Caps.SameName(n, name) {
			taken = append(taken, n)
		}
	}
	f.Mounted, f.Taken = mounted, taken
	f.Held -= held
	return f
}

// Input is a disk as typed by the user (the CLI's arguments, the menu's
// Custom… dialog): the size still a string, "4G", "1.5GiB" or "25%".
type Input struct {
	Name   string
	Size   string
	FS     FileSystem
	Hidden bool
	Force  bool
	// Options are the disk's extras (create --noexec, --folders, …).
	Options VolumeOptions
}

// CheckInput refuses a bad name or a badly spelled size before anything is
// asked of the machine (a percentage is resolved later, once memory is known).
func CheckInput(in Input) error {
	if err := ValidateName(in.Name); err != nil {
		return err
	}
	if _, err := ParseSize(in.Size, MaxSize); err != nil {
		return err
	}
	return in.Options.Check()
}

// PlanInput is the one place typed input becomes a plan: the name checked,
// the size parsed against this machine's memory, then NewPlan.
func PlanInput(in Input, f Facts) (Plan, error) {
	if err := ValidateName(in.Name); err != nil {
		return Plan{}, err
	}
	size, err := ParseSize(in.Size, f.Memory.Physical)
	if err != nil {
		return Plan{}, err
	}
	p, err := NewPlan(Request{Name: in.Name, Size: size, FS: in.FS, Hidden: in.Hidden, Force: in.Force, Options: in.Options}, f)
	if n := roundingNote(in.Size, size, p.FS); err == nil && n.Text != "" {
		p.Notes = append([]Note{n}, p.Notes...)
	}
	if n := unitNote(in.Size, size); err == nil && n.Text != "" {
		p.Notes = append([]Note{n}, p.Notes...)
	}
	return p, err
}

// Input is the disk a preset describes, as typed input for PlanInput.
func (p Preset) Input() Input {
	return Input{Name: p.Name, Size: p.Size, FS: p.FS, Hidden: p.Hidden, Options: p.VolumeOptions()}
}

// ShortDuration prints a duration as people write it: "3 ms", "0.84 s",
// "45 s", "10 min", "1 h", "1 h 30 min" (fractions of a second only under
// 10 s, milliseconds under 10 ms, never "0 s" for a time that passed; Go's
// own form is "10m0s").
func ShortDuration(d time.Duration) string {
	switch {
	case d > 0 && d < time.Millisecond:
		return "under 1 ms"
	case d > 0 && d < 10*time.Millisecond:
		return strconv.Itoa(int(d.Round(time.Millisecond)/time.Millisecond)) + " ms"
	}
	if d > 0 && d < 10*time.Second && d%time.Second != 0 {
		s := strconv.FormatFloat(d.Seconds(), 'f', 2, 64)
		return strings.TrimSuffix(strings.TrimRight(s, "0"), ".") + " s"
	}
	d = d.Round(time.Second)
	h, m, sec := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	var parts []string
	if h > 0 {
		parts = append(parts, strconv.Itoa(h)+" h")
	}
	if m > 0 {
		parts = append(parts, strconv.Itoa(m)+" min")
	}
	if sec > 0 || len(parts) == 0 {
		parts = append(parts, strconv.Itoa(sec)+" s")
	}
	return strings.Join(parts, " ")
}

// ContentsPhrase says what happens to a preset's contents, in a few words:
// "discarded", "kept, saved every 10m, 3 snapshots", "mirrors /path".
func ContentsPhrase(p Preset) string {
	var s string
	switch p.Contents {
	case Keep:
		s = "kept"
	case Mirror:
		s = "mirrors " + p.MirrorPath
		if p.InPlace {
			s = "mirrors " + p.MirrorPath + " in place"
		}
	default:
		return "discarded"
	}
	switch {
	case p.SaveAuto:
		s += ", saved continuously"
	case p.SaveEvery > 0:
		s += ", saved every " + ShortDuration(p.SaveInterval())
	}
	if p.Snapshots > 0 {
		s += ", " + Plural(p.Snapshots, "snapshot")
	}
	return s
}

// MemoryLine sums up the machine for the CLI and the menu: "RAM disks hold
// 1.9 GiB of 16 GiB memory; 8.2 GiB free, 1.1 GiB compressed, no swap in
// use" (nothing about swap on a machine that has none).
func MemoryLine(held Size, m Memory) string {
	s := fmt.Sprintf("RAM disks hold %s of %s memory; %s free", held.Short(), m.Physical.Short(), m.Free.Short())
	if m.Compressed > 0 {
		s += fmt.Sprintf(", %s compressed", m.Compressed.Short())
	}
	switch {
	case m.Swapping():
		return s + fmt.Sprintf(", %s of swap in use", m.SwapUsed.Short())
	case m.NoSwap():
		return s // no swap to speak of
	}
	return s + ", no swap in use"
}
