package mirror

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"rambar/internal/atomicfile"
	"rambar/ramdisk"
)

// State is what RAMBar remembers about one kept or mirrored disk, in the
// data folder, so a later process (CLI or tray) finds it again.
type State struct {
	Name string              `json:"name"`
	Mode ramdisk.ContentMode `json:"mode"`
	// ID is the random id written to the disk's marker file (.rambar-id):
	// it ties a mounted disk to this store.
	ID string `json:"id"`
	// Backing is the store folder holding the snapshots.
	Backing string `json:"backing"`
	// MirrorPath is the folder a Mirror disk loads and writes back.
	MirrorPath string `json:"mirror_path,omitempty"`
	// Snapshots is how many saves are kept.
	Snapshots int `json:"snapshots"`
	// SaveEvery is the autosave interval in seconds; 0 = off.
	SaveEvery int `json:"save_every_seconds,omitempty"`
	// LastSave is when the disk was last saved (or loaded), zero if never.
	LastSave     time.Time `json:"last_save,omitempty"`
	LastSnapshot string    `json:"last_snapshot,omitempty"`
	// InPlace: after its load the disk is mounted over MirrorPath itself
	// (create --in-place); the load and write-back open the folder through
	// Keeper.Through.
	InPlace bool `json:"in_place,omitempty"`
}

// Options configure a disk's contents (from a preset or CLI flags).
type Options struct {
	Mode       ramdisk.ContentMode
	MirrorPath string
	Snapshots  int           // 0: DefaultSnapshots
	SaveEvery  time.Duration // 0: no autosave
	// CreateFolder makes a missing mirror folder (else it is refused).
	CreateFolder bool
	// MountPoint is where the disk will be mounted: a mirror folder inside
	// it is refused.
	MountPoint string
	// InPlace mounts the disk over the mirror folder after its load
	// (CheckInPlace says which folders may be).
	InPlace bool
}

// OptionsFromPreset reads the contents settings of a preset.
func OptionsFromPreset(p ramdisk.Preset) Options {
	return Options{Mode: p.Contents, MirrorPath: p.MirrorPath, Snapshots: p.Snapshots, SaveEvery: p.SaveInterval(),
		InPlace: p.Contents == ramdisk.Mirror && p.InPlace}
}

// State returns what is remembered about a disk; ErrNotKept if nothing.
func (k *Keeper) State(name string) (State, error) {
	dir, err := k.diskDir(name)
	if err != nil {
		return State{}, err
	}
	b, err := readBounded(filepath.Join(dir, "state.json"), maxSmall)
	if errors.Is(err, fs.ErrNotExist) {
		return State{}, fmt.Errorf("%s: %w", name, ErrNotKept)
	}
	if err != nil {
		return State{}, fmt.Errorf("read state of %s: %w", name, err)
	}
	var st State
	if err := json.Unmarshal(b, &st); err != nil {
		return State{}, fmt.Errorf("state of %s is corrupt (%s): %w", name, filepath.Join(dir, "state.json"), err)
	}
	// The store is where the state was found, even if the data folder moved.
	st.Backing = dir
	if b, err := readBounded(filepath.Join(dir, "last.json"), maxSmall); err == nil {
		var l lastSave
		if json.Unmarshal(b, &l) == nil {
			st.LastSave, st.LastSnapshot = l.Time, l.Snapshot
		}
	}
	return st, nil
}

// lastSave is kept apart from state.json and written without fsync: it is
// information, and losing it in a power cut loses nothing.
type lastSave struct {
	Time     time.Time `json:"time"`
	Snapshot string    `json:"snapshot"`
}

func (k *Keeper) noteSave(st State, snapshot string) error {
	b, _ := json.Marshal(lastSave{Time: time.Now().UTC(), Snapshot: snapshot})
	return noSpace(atomicfile.WriteFast(filepath.Join(st.Backing, "last.json"), b, 0o600))
}

func (k *Keeper) writeState(st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return noSpace(atomicfile.WriteFile(filepath.Join(st.Backing, "state.json"), append(b, '\n'), 0o600))
}

// Setup records how a disk's contents are kept, keeping its id and history
// when it was kept before (creating a kept disk again restores it).
func (k *Keeper) Setup(name string, o Options) (State, error) {
	dir, err := k.diskDir(name)
	if err != nil {
		return State{}, err
	}
	switch o.Mode {
	case ramdisk.Keep:
		if o.InPlace {
			return State{}, errors.New("--in-place goes with --mirror FOLDER")
		}
	case ramdisk.Mirror:
		if !filepath.IsAbs(o.MirrorPath) {
			return State{}, fmt.Errorf("mirror folder must be an absolute path, got %q", o.MirrorPath)
		}
		o.MirrorPath = filepath.Clean(o.MirrorPath)
		if err := k.setupFolder(name, o); err != nil {
			return State{}, err
		}
	default:
		return State{}, fmt.Errorf("unknown contents mode %q (keep or mirror)", o.Mode)
	}
	if o.Snapshots < 0 || o.SaveEvery < 0 {
		return State{}, errors.New("snapshot count and save interval must not be negative")
	}
	st, err := k.State(name)
	if err != nil && !errors.Is(err, ErrNotKept) {
		return State{}, err
	}
	if errors.Is(err, ErrNotKept) {
		st = State{Name: name, ID: randomID(), Backing: dir}
	}
	st.Mode, st.MirrorPath = o.Mode, o.MirrorPath
	st.InPlace = o.Mode == ramdisk.Mirror && o.InPlace
	st.Snapshots = o.Snapshots
	if st.Snapshots == 0 {
		st.Snapshots = DefaultSnapshots
	}
	st.SaveEvery = int(o.SaveEvery / time.Second)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return State{}, noSpace(fmt.Errorf("make %s: %w", dir, err))
	}
	return st, k.writeState(st)
}

// Forget removes everything kept for a disk: state and snapshots.
func (k *Keeper) Forget(name string) error {
	dir, err := k.diskDir(name)
	if err != nil {
		return err
	}
	return os.RemoveAll(dir)
}

func randomID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}
