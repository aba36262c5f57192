package ramdisk

import (
	"path/filepath"
	"strings"
	"unicode"

	"rambar/i18n"
)

// VolumeOptions are a disk's extras beyond its name, size and file system:
// what `create --noexec --folders --mount-point --icon --spotlight` and a
// preset ask for. The zero value is a disk as RAMBar always made it.
type VolumeOptions struct {
	// NoExec mounts the disk noexec, nosuid and nodev: nothing on it runs.
	NoExec bool `json:"noexec"`
	// Folders are made on the disk at every mount and after every restore:
	// clean relative paths ("a", "b/c").
	Folders []string `json:"folders,omitempty"`
	// MountPoint is a folder of the user's choice to mount the disk at
	// instead of the mount root (CheckMountPoint); "" is the default.
	MountPoint string `json:"mount_point,omitempty"`
	// Icon is an absolute path to a .icns or .png file shown as the volume's
	// icon (macOS Finder; on Linux the file is written and nothing else).
	Icon string `json:"icon,omitempty"`
	// Spotlight turns Spotlight indexing on (macOS); off by default.
	Spotlight bool `json:"spotlight"`
}

// ErrOption is wrapped by every refused volume option: bad input.
var ErrOption = i18n.New("invalid option")

// MaxFolders is how many pre-made folders a disk may have.
const MaxFolders = 100

// ParseFolders splits "a,b/c" into folders and checks each (CheckFolder).
// Empty input gives none.
func ParseFolders(s string) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(f))
	}
	return out, CheckFolders(out)
}

// CheckFolders checks every folder and their number.
func CheckFolders(fs []string) error {
	if len(fs) > MaxFolders {
		return i18n.Errorf("%w: %d folders, at most %d", ErrOption, len(fs), MaxFolders)
	}
	for _, f := range fs {
		if err := CheckFolder(f); err != nil {
			return err
		}
	}
	return nil
}

// CheckFolder refuses anything but a clean relative path inside the disk:
// no leading '/', no '.' or '..' part, no empty part or trailing '/', no
// control characters, each part a valid name.
func CheckFolder(f string) error {
	switch {
	case f == "":
		return i18n.Errorf("%w: an empty folder name (in --folders a,b/c)", ErrOption)
	case filepath.IsAbs(f) || strings.HasPrefix(f, "/"):
		return i18n.Errorf("%w: folder %q must be relative to the disk, like b/c", ErrOption, f)
	case filepath.Clean(f) != f:
		return i18n.Errorf("%w: folder %q is not a clean path (no '.', '..', '//' or trailing '/')", ErrOption, f)
	case len(f) > 1024:
		return i18n.Errorf("%w: folder %q is longer than 1024 bytes", ErrOption, f)
	}
	for _, part := range strings.Split(f, "/") {
		if part == ".." || part == "." {
			return i18n.Errorf("%w: folder %q may not go up or use '.'", ErrOption, f)
		}
		for _, r := range part {
			if unicode.IsControl(r) || r == ':' {
				return i18n.Errorf("%w: folder %q may not contain control characters or ':'", ErrOption, f)
			}
		}
		if len(part) > MaxNameBytes {
			return i18n.Errorf("%w: folder %q has a part over %d bytes", ErrOption, f, MaxNameBytes)
		}
	}
	return nil
}

// CheckIcon refuses an icon path that is not absolute or not a .icns or
// .png file name (the file itself is read when the disk is made).
func CheckIcon(path string) error {
	if path == "" {
		return nil
	}
	if !filepath.IsAbs(path) {
		return i18n.Errorf("%w: icon %q must be an absolute path", ErrOption, path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".icns", ".png":
		return nil
	}
	return i18n.Errorf("%w: icon %q: give a .icns or .png file", ErrOption, path)
}

// Check checks the options that can be checked without the machine: the
// folders, the icon's name and that a mount point is absolute.
func (o VolumeOptions) Check() error {
	if err := CheckFolders(o.Folders); err != nil {
		return err
	}
	if err := CheckIcon(o.Icon); err != nil {
		return err
	}
	if o.MountPoint != "" && !filepath.IsAbs(o.MountPoint) {
		return i18n.Errorf("%w: mount point %q must be an absolute path", ErrOption, o.MountPoint)
	}
	return nil
}

// Phrase lists the options that are set, for presets and plans:
// "noexec, folders a, b/c, at /x, icon, Spotlight on"; "" when none is.
func (o VolumeOptions) Phrase() string {
	var p []string
	if o.NoExec {
		p = append(p, "noexec")
	}
	if len(o.Folders) > 0 {
		p = append(p, "folders "+strings.Join(o.Folders, ", "))
	}
	if o.MountPoint != "" {
		p = append(p, "at "+o.MountPoint)
	}
	if o.Icon != "" {
		p = append(p, "icon "+filepath.Base(o.Icon))
	}
	if o.Spotlight {
		p = append(p, "Spotlight on")
	}
	return strings.Join(p, ", ")
}

// VolumeOptions are the extras the preset asks for.
func (p Preset) VolumeOptions() VolumeOptions {
	return VolumeOptions{NoExec: p.NoExec, Folders: p.Folders, MountPoint: p.MountPoint, Icon: p.Icon, Spotlight: p.Spotlight}
}

// SetVolumeOptions stores o in the preset.
func (p *Preset) SetVolumeOptions(o VolumeOptions) {
	p.NoExec, p.Folders, p.MountPoint, p.Icon, p.Spotlight = o.NoExec, o.Folders, o.MountPoint, o.Icon, o.Spotlight
}

// applyVolume applies the extras' part of a change.
func (c PresetChange) applyVolume(p *Preset) {
	if c.NoExec != nil {
		p.NoExec = *c.NoExec
	}
	if c.Folders != nil {
		p.Folders = *c.Folders
	}
	if c.MountPoint != nil {
		p.MountPoint = *c.MountPoint
	}
	if c.Icon != nil {
		p.Icon = *c.Icon
	}
	if c.Spotlight != nil {
		p.Spotlight = *c.Spotlight
	}
	if c.Caches != nil {
		p.Caches = *c.Caches
	}
}

// checkExtras checks the preset's extras and its cache targets (absolute
// folders, or "tmpdir").
func (p Preset) checkExtras() error {
	if err := p.VolumeOptions().Check(); err != nil {
		return err
	}
	for _, c := range p.Caches {
		if c != "tmpdir" && (!filepath.IsAbs(c) || filepath.Clean(c) != c) {
			return i18n.Errorf("%w: cache target %q must be a clean absolute path", ErrOption, c)
		}
	}
	return nil
}
