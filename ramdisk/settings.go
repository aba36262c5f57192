package ramdisk

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"howett.net/plist"

	"rambar/i18n"
)

// SettingsVersion is the schema version this build writes. Files of every
// older version load through migrate; a newer one is refused untouched.
const SettingsVersion = 3

// Errors about the settings file.
var (
	// ErrSettingsCorrupt: the file is not a settings plist.
	ErrSettingsCorrupt = i18n.New("settings file is corrupt")
	// ErrSettingsNewer: written by a newer RAMBar; this one will not touch it.
	ErrSettingsNewer = i18n.New("settings file is from a newer RAMBar")
)

// ContentMode says what happens to a disk's contents.
type ContentMode string

// Content modes.
const (
	Discard ContentMode = ""       // contents die with the disk
	Keep    ContentMode = "keep"   // saved to a backing folder, restored at create
	Mirror  ContentMode = "mirror" // an existing folder loaded at create, changes written back
)

// EjectOnQuit values.
const (
	QuitAsk   = "ask"
	QuitEject = "eject"
	QuitLeave = "leave"
)

// Preset is a disk the user wants again: made from the menu in one click, or
// at login when AutoMount is set.
type Preset struct {
	Name string `plist:"Name"`
	// Size is the size as the user typed it ("4G", "25%"), so a percentage
	// follows the machine.
	Size      string      `plist:"Size"`
	FS        FileSystem  `plist:"FileSystem,omitempty"`
	Hidden    bool        `plist:"Hidden,omitempty"`
	AutoMount bool        `plist:"AutoMount,omitempty"`
	Contents  ContentMode `plist:"Contents,omitempty"`
	// MirrorPath is the folder a Mirror disk loads and writes back.
	MirrorPath string `plist:"MirrorPath,omitempty"`
	// InPlace mounts a Mirror disk over its folder once loaded, so the
	// folder's own path serves it from memory.
	InPlace bool `plist:"InPlace,omitempty"`
	// SaveEvery is the autosave interval in seconds for Keep and Mirror; 0 = off.
	SaveEvery int `plist:"SaveEverySeconds,omitempty"`
	// SaveAuto saves Keep and Mirror disks continuously instead (by their
	// change feed, seconds after each change: --save-every auto).
	SaveAuto bool `plist:"SaveContinuously"`
	// Snapshots is how many past saves to keep; 0 = the default.
	Snapshots int `plist:"Snapshots,omitempty"`
	// Version 3: the disk's extras (VolumeOptions) and its cache targets.
	NoExec     bool     `plist:"NoExec,omitempty"`
	Folders    []string `plist:"Folders,omitempty"`
	MountPoint string   `plist:"MountPoint,omitempty"`
	Icon       string   `plist:"Icon,omitempty"`
	Spotlight  bool     `plist:"Spotlight,omitempty"`
	// Caches are folders switched onto the disk when it is mounted ('rambar cache').
	Caches []string `plist:"Caches,omitempty"`
}

// SaveInterval returns SaveEvery as a duration.
func (p Preset) SaveInterval() time.Duration { return time.Duration(p.SaveEvery) * time.Second }

// Validate checks a preset's fields (the size against physical memory when a
// percentage is used).
func (p Preset) Validate(physical Size) error {
	if err := ValidateName(p.Name); err != nil {
		return fmt.Errorf("preset %q: %w", p.Name, err)
	}
	if _, err := ParseSize(p.Size, physical); err != nil {
		return fmt.Errorf("preset %q: %w", p.Name, err)
	}
	if p.FS != "" {
		if _, err := ParseFileSystem(string(p.FS)); err != nil {
			return fmt.Errorf("preset %q: %w", p.Name, err)
		}
	}
	switch p.Contents {
	case Discard, Keep:
	case Mirror:
		if !filepath.IsAbs(p.MirrorPath) {
			return fmt.Errorf("preset %q: mirror folder must be an absolute path, got %q", p.Name, p.MirrorPath)
		}
	default:
		return fmt.Errorf("preset %q: unknown contents mode %q (keep or mirror)", p.Name, p.Contents)
	}
	if p.InPlace && p.Contents != Mirror {
		return fmt.Errorf("preset %q: in place goes with a mirror folder", p.Name)
	}
	if err := p.checkExtras(); err != nil {
		return fmt.Errorf("preset %q: %w", p.Name, err)
	}
	return p.checkRanges()
}

// Limits on a preset's numbers: anything beyond is refused, at load too.
const (
	MaxSaveEverySeconds = 30 * 24 * 3600 // 720h
	MaxSnapshots        = 1000
)

// checkRanges refuses numbers out of range (a hand-edited file with a
// SaveEverySeconds near the int64 limit would otherwise say "every -1s").
func (p Preset) checkRanges() error {
	if p.SaveEvery < 0 || p.Snapshots < 0 {
		return fmt.Errorf("preset %q: save interval and snapshot count must not be negative", p.Name)
	}
	if p.SaveEvery > MaxSaveEverySeconds {
		return fmt.Errorf("preset %q: SaveEverySeconds %d is out of range (0 to %d, 720h)", p.Name, p.SaveEvery, MaxSaveEverySeconds)
	}
	if p.Snapshots > MaxSnapshots {
		return fmt.Errorf("preset %q: Snapshots %d is out of range (0 to %d)", p.Name, p.Snapshots, MaxSnapshots)
	}
	return nil
}

// Settings is everything RAMBar remembers.
type Settings struct {
	Version int `plist:"Version"`
	// ShowMemoryInTitle puts the total memory RAM disks hold in the menu-bar title.
	ShowMemoryInTitle bool `plist:"ShowMemoryInTitle"`
	// EjectOnQuit: QuitAsk, QuitEject or QuitLeave.
	EjectOnQuit string   `plist:"EjectOnQuit"`
	Presets     []Preset `plist:"Presets"`
	// SaveContinuously saves every kept or mirrored disk seconds after it
	// changes while the menu-bar app runs, whatever its own interval (as
	// --save-every auto does for one disk). Always written (an omitted
	// key would be one the file kept as unknown); older files lack it.
	SaveContinuously bool `plist:"SaveContinuously"`
	// CheckForUpdatesDaily lets the menu-bar app look once a day whether a
	// newer release is out (never for a copy Homebrew updates). On by
	// default: a file without the key reads as on.
	CheckForUpdatesDaily bool `plist:"CheckForUpdatesDaily"`
}

// DefaultSettings is what a fresh install starts with.
func DefaultSettings() Settings {
	return Settings{Version: SettingsVersion, EjectOnQuit: QuitAsk, Presets: []Preset{}, CheckForUpdatesDaily: true}
}

// Preset returns the preset with that name (case-insensitive).
func (s *Settings) Preset(name string) (*Preset, bool) {
	for i := range s.Presets {
		if strings.EqualFold(s.Presets[i].Name, name) {
			return &s.Presets[i], true
		}
	}
	return nil, false
}

// Validate checks every field.
func (s Settings) Validate(physical Size) error {
	switch s.EjectOnQuit {
	case QuitAsk, QuitEject, QuitLeave:
	default:
		return fmt.Errorf("EjectOnQuit %q: use %s, %s or %s", s.EjectOnQuit, QuitAsk, QuitEject, QuitLeave)
	}
	seen := map[string]bool{}
	for _, p := range s.Presets {
		if err := p.Validate(physical); err != nil {
			return err
		}
		k := strings.ToLower(p.Name)
		if seen[k] {
			return fmt.Errorf("preset %q is defined twice", p.Name)
		}
		seen[k] = true
	}
	return nil
}

// settingsV1 is the first schema: sizes in whole MiB and diskutil's own
// file-system names ("APFS", "HFS+"); no content modes.
type settingsV1 struct {
	Version           int `plist:"Version"`
	ShowMemoryInTitle bool
	EjectOnQuit       bool // v1: eject on quit, yes or no
	Presets           []struct {
		Name      string
		SizeMiB   int64
		Format    string
		Hidden    bool
		AutoMount bool
	}
}

// DecodeSettings reads a settings plist of any known version and returns it
// migrated to SettingsVersion.
func DecodeSettings(data []byte) (Settings, error) {
	var head struct {
		Version int `plist:"Version"`
	}
	if _, err := plist.Unmarshal(data, &head); err != nil {
		return Settings{}, fmt.Errorf("%w: %v", ErrSettingsCorrupt, err)
	}
	switch {
	case head.Version > SettingsVersion:
		return Settings{}, fmt.Errorf("%w (version %d; this RAMBar reads up to %d)", ErrSettingsNewer, head.Version, SettingsVersion)
	case head.Version == 1:
		var v1 settingsV1
		if _, err := plist.Unmarshal(data, &v1); err != nil {
			return Settings{}, fmt.Errorf("%w: %v", ErrSettingsCorrupt, err)
		}
		s := DefaultSettings()
		s.ShowMemoryInTitle = v1.ShowMemoryInTitle
		if v1.EjectOnQuit {
			s.EjectOnQuit = QuitEject
		}
		for _, p := range v1.Presets {
			fsys, err := ParseFileSystem(p.Format)
			if err != nil {
				return Settings{}, fmt.Errorf("%w: preset %q: %v", ErrSettingsCorrupt, p.Name, err)
			}
			s.Presets = append(s.Presets, Preset{Name: p.Name, Size: fmt.Sprintf("%dM", p.SizeMiB), FS: fsys, Hidden: p.Hidden, AutoMount: p.AutoMount})
		}
		return s, nil
	case head.Version == 2 || head.Version == SettingsVersion:
		// Version 3 only added optional keys: a version 2 file reads as one.
		s := DefaultSettings()
		if _, err := plist.Unmarshal(data, &s); err != nil {
			return Settings{}, fmt.Errorf("%w: %v", ErrSettingsCorrupt, err)
		}
		s.Version = SettingsVersion
		if s.EjectOnQuit == "" {
			s.EjectOnQuit = QuitAsk
		}
		if s.Presets == nil {
			s.Presets = []Preset{}
		}
		for _, p := range s.Presets {
			if err := p.checkRanges(); err != nil {
				return Settings{}, fmt.Errorf("%w: %v", ErrSettingsCorrupt, err)
			}
		}
		return s, nil
	}
	return Settings{}, fmt.Errorf("%w: no valid Version key (got %d)", ErrSettingsCorrupt, head.Version)
}

// EncodeSettings writes s as an XML plist at SettingsVersion.
func EncodeSettings(s Settings) ([]byte, error) {
	s.Version = SettingsVersion
	if s.Presets == nil {
		s.Presets = []Preset{}
	}
	var b bytes.Buffer
	enc := plist.NewEncoderForFormat(&b, plist.XMLFormat)
	enc.Indent("\t")
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("plist encode settings: %w", err)
	}
	return b.Bytes(), nil
}
