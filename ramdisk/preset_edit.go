package ramdisk

import (
	"fmt"
	"sort"
	"strings"
)

// presetError is a preset sentinel that also matches a general sentinel
// (ErrNotFound, ErrName) so callers map it to the same exit code.
type presetError struct {
	msg  string
	kind error
}

func (e presetError) Error() string        { return e.msg }
func (e presetError) Is(target error) bool { return target == e.kind }

// Preset errors. ErrNoPreset also matches ErrNotFound; ErrPresetExists
// matches ErrName (a name already taken by a preset is a bad argument, not a
// mounted disk).
var (
	// ErrNoPreset: no preset has that name.
	ErrNoPreset error = presetError{"no such preset", ErrNotFound}
	// ErrPresetExists: a preset with that name (in any letter case) exists.
	ErrPresetExists error = presetError{"a preset with that name exists", ErrName}
)

// PresetChange is an edit of some of a preset's fields: nil fields are left
// as they are. Setting Contents to Discard clears the mirror folder, the save
// interval and the snapshot count; setting it to Keep clears the mirror folder.
type PresetChange struct {
	Size       *string
	FS         *FileSystem
	Hidden     *bool
	AutoMount  *bool
	Contents   *ContentMode
	MirrorPath *string
	InPlace    *bool
	SaveEvery  *int // seconds
	SaveAuto   *bool
	Snapshots  *int
	// The disk's extras (VolumeOptions).
	NoExec     *bool
	Folders    *[]string
	MountPoint *string
	Icon       *string
	Spotlight  *bool
	Caches     *[]string
}

// Empty reports whether the change changes nothing.
func (c PresetChange) Empty() bool {
	return c == PresetChange{}
}

// Apply applies c to p.
func (c PresetChange) Apply(p *Preset) {
	if c.Size != nil {
		p.Size = *c.Size
	}
	if c.FS != nil {
		p.FS = *c.FS
	}
	if c.Hidden != nil {
		p.Hidden = *c.Hidden
	}
	if c.AutoMount != nil {
		p.AutoMount = *c.AutoMount
	}
	if c.Contents != nil {
		p.Contents = *c.Contents
		switch p.Contents {
		case Discard:
			p.MirrorPath, p.SaveEvery, p.Snapshots, p.InPlace, p.SaveAuto = "", 0, 0, false, false
		case Keep:
			p.MirrorPath, p.InPlace = "", false
		}
	}
	if c.MirrorPath != nil {
		p.MirrorPath = *c.MirrorPath
	}
	if c.InPlace != nil {
		p.InPlace = *c.InPlace
	}
	if c.SaveEvery != nil {
		p.SaveEvery, p.SaveAuto = *c.SaveEvery, false
	}
	if c.SaveAuto != nil {
		if p.SaveAuto = *c.SaveAuto; p.SaveAuto {
			p.SaveEvery = 0
		}
	}
	if c.Snapshots != nil {
		p.Snapshots = *c.Snapshots
	}
	c.applyVolume(p)
}

// checkSaving refuses saving options on a disk whose contents are discarded,
// and a mirror folder on a disk that does not mirror: they would be silently
// ignored; and options that cannot work together (CheckChoices).
func (p Preset) checkSaving() error {
	if p.Contents == Discard && (p.SaveEvery > 0 || p.SaveAuto || p.Snapshots > 0) {
		return fmt.Errorf("preset %q: a save interval or snapshots need kept or mirrored contents (--keep or --mirror PATH)", p.Name)
	}
	if p.Contents != Mirror && p.MirrorPath != "" {
		return fmt.Errorf("preset %q: a mirror folder is set but the contents are not mirrored", p.Name)
	}
	if err := CheckChoices(p.Choices()); err != nil {
		return fmt.Errorf("preset %q: %w", p.Name, err)
	}
	return nil
}

// AddPreset appends p after checking it (physical resolves percentages).
// A preset with the same name in any letter case is refused with
// ErrPresetExists.
func (s *Settings) AddPreset(p Preset, physical Size) error {
	if _, ok := s.Preset(p.Name); ok {
		return fmt.Errorf("preset %q: %w", p.Name, ErrPresetExists)
	}
	if err := p.Validate(physical); err != nil {
		return err
	}
	if err := p.checkSaving(); err != nil {
		return err
	}
	s.Presets = append(s.Presets, p)
	return nil
}

// EditPreset applies c to the preset named name (any letter case). Nothing
// changes when the result does not validate.
func (s *Settings) EditPreset(name string, c PresetChange, physical Size) (Preset, error) {
	p, ok := s.Preset(name)
	if !ok {
		return Preset{}, fmt.Errorf("preset %q: %w%s", name, ErrNoPreset, s.presetNames())
	}
	edited := *p
	c.Apply(&edited)
	if err := edited.Validate(physical); err != nil {
		return Preset{}, err
	}
	if err := edited.checkSaving(); err != nil {
		return Preset{}, err
	}
	*p = edited
	return edited, nil
}

// RemovePreset removes the preset named name (any letter case) and returns it.
func (s *Settings) RemovePreset(name string) (Preset, error) {
	for i, p := range s.Presets {
		if strings.EqualFold(p.Name, name) {
			s.Presets = append(s.Presets[:i:i], s.Presets[i+1:]...)
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("preset %q: %w%s", name, ErrNoPreset, s.presetNames())
}

// FindPreset returns the preset named name (any letter case), or
// ErrNoPreset with the names there are.
func (s Settings) FindPreset(name string) (Preset, error) {
	if p, ok := s.Preset(name); ok {
		return *p, nil
	}
	return Preset{}, fmt.Errorf("preset %q: %w%s", name, ErrNoPreset, s.presetNames())
}

// AutoMountPresets returns the presets to mount at login, in file order.
func (s Settings) AutoMountPresets() []Preset {
	var out []Preset
	for _, p := range s.Presets {
		if p.AutoMount {
			out = append(out, p)
		}
	}
	return out
}

// presetNames is " (presets: A, B)" or " (there are none)" for error messages.
func (s Settings) presetNames() string {
	if len(s.Presets) == 0 {
		return " (there are none)"
	}
	names := make([]string, len(s.Presets))
	for i, p := range s.Presets {
		names[i] = p.Name
	}
	sort.Strings(names)
	return " (presets: " + strings.Join(names, ", ") + ")"
}
