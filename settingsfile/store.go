package settingsfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"rambar/ramdisk"

	"rambar/internal/record"
)

// Store is the settings file on disk.
//
// Every change is one Update: the file is locked (an flock on its folder,
// across processes: the CLI and the menu), read, changed, checked and
// written, so two `preset add` at once lose nothing. Keys of the current
// version that this RAMBar does not know are kept as they were. When the
// file is a symbolic link, the link's target is written (atomically, beside
// it); a link that leads nowhere is refused with a reason.
type Store struct {
	Path string
}

// Load reads the settings. A missing file gives ramdisk.DefaultSettings. A corrupt or
// newer file, or one with numbers out of range, gives an error naming it, and
// the file is left untouched.
func (st Store) Load() (ramdisk.Settings, error) {
	s, _, err := st.load()
	return s, err
}

// load is Load that also returns the file's bytes (nil when there is none).
func (st Store) load() (ramdisk.Settings, []byte, error) {
	data, err := os.ReadFile(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(st.Path); lerr == nil {
			return ramdisk.Settings{}, nil, fmt.Errorf("read settings: %s is a symbolic link to nothing: %w", st.Path, err)
		}
		return ramdisk.DefaultSettings(), nil, nil
	}
	if err != nil {
		return ramdisk.Settings{}, nil, fmt.Errorf("read settings: %w", err)
	}
	s, err := ramdisk.DecodeSettings(data)
	if err != nil {
		return ramdisk.Settings{}, nil, fmt.Errorf("%s: %w; it was left as it is: move it aside to start afresh", st.Path, err)
	}
	return s, data, nil
}

// Save writes s atomically (temp file, fsync, rename), under the lock. It
// refuses to replace a file that Load cannot read, so a corrupt or newer file
// is never silently overwritten.
func (st Store) Save(s ramdisk.Settings) error {
	unlock, err := st.lock()
	if err != nil {
		return err
	}
	defer unlock()
	_, old, err := st.load()
	if err != nil {
		return err
	}
	return st.write(s, old)
}

// Update loads, applies fn, validates and saves, holding the lock from the
// load to the save. Nothing is written when fn or validation fails.
func (st Store) Update(physical ramdisk.Size, fn func(*ramdisk.Settings) error) (ramdisk.Settings, error) {
	unlock, err := st.lock()
	if err != nil {
		return ramdisk.Settings{}, err
	}
	defer unlock()
	s, old, err := st.load()
	if err != nil {
		return ramdisk.Settings{}, err
	}
	if err := fn(&s); err != nil {
		return ramdisk.Settings{}, err
	}
	if err := s.Validate(physical); err != nil {
		return ramdisk.Settings{}, err
	}
	return s, st.write(s, old)
}

// write encodes s, keeping the unknown keys of old, and replaces the file
// (the target of a symbolic link).
func (st Store) write(s ramdisk.Settings, old []byte) error {
	data, err := ramdisk.EncodeSettings(s)
	if err != nil {
		return err
	}
	if data, err = keepUnknown(data, old); err != nil {
		return err
	}
	path, err := st.target()
	if err != nil {
		return err
	}
	// Whole (a temporary copy renamed over it), durably, its folder made
	// 0700 first; a copy a killed writer left is removed (record.Write).
	if err := record.Write(path, data, true); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// target is the file to replace: Path, or where the symbolic link Path
// leads.
func (st Store) target() (string, error) {
	fi, err := os.Lstat(st.Path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return st.Path, nil
	}
	t, err := filepath.EvalSymlinks(st.Path)
	if err != nil {
		return "", fmt.Errorf("save settings: %s is a symbolic link that cannot be followed: %w", st.Path, err)
	}
	if fi, err := os.Stat(t); err == nil && !fi.Mode().IsRegular() {
		return "", fmt.Errorf("save settings: %s leads to %s, which is not a file", st.Path, t)
	}
	return t, nil
}
