package keeper

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"rambar/snapstore"
	"rambar/tree"

	"rambar/internal/boottime"
	"rambar/internal/record"
	"rambar/ramdisk"
)

// State is what RAMBar remembers about one kept or mirrored disk, in the
// data folder, so a later process (CLI or tray) finds it again.
type State struct {
	Name string              `json:"name"`
	Mode ramdisk.ContentMode `json:"mode"`
	// ID is the random id that ties a mounted disk to this store: in the
	// data folder's record of the disk and its mark (internal/diskid).
	ID string `json:"id"`
	// Backing is the store folder holding the snapshots.
	Backing string `json:"backing"`
	// MirrorPath is the folder a Mirror disk loads and writes back.
	MirrorPath string `json:"mirror_path,omitempty"`
	// Snapshots is how many saves are kept.
	Snapshots int `json:"snapshots"`
	// SaveEvery is the autosave interval in seconds; 0 = off.
	SaveEvery int `json:"save_every_seconds,omitempty"`
	// Continuous: saved by its change feed while the menu-bar app runs,
	// about ContinuousQuiet after the disk goes quiet and at most every
	// ContinuousBusy under steady writing (--save-every auto); its
	// snapshots are kept spaced in time.
	Continuous bool `json:"save_continuously,omitempty"`
	// SetAside are snapshots of kept work that is in no folder, kept when
	// the name was mirrored after it (Options.SetAsideKept): never pruned;
	// 'rambar forget' deletes them with the rest.
	SetAside []string `json:"set_aside,omitempty"`
	// LastSave is when the disk was last saved (or loaded), zero if never.
	LastSave     time.Time `json:"last_save,omitempty"`
	LastSnapshot string    `json:"last_snapshot,omitempty"`
	// LastSaveClock is when the last save was on the boot clock (set
	// clocks move it not): autosave goes by it (SaveDue).
	LastSaveClock boottime.Stamp `json:"-"`
	// InPlace: after its load the disk is mounted over MirrorPath itself
	// (create --in-place); the load and write-back open the folder through
	// Keeper.Through.
	InPlace bool `json:"in_place,omitempty"`
}

// Options configure a disk's contents (from a preset or CLI flags). A
// setting left zero keeps what is stored for the name (a name kept before
// keeps its snapshot count and autosave when made again without flags).
type Options struct {
	Mode       ramdisk.ContentMode
	MirrorPath string
	// Snapshots is how many saves to keep; 0 keeps the stored count
	// (DefaultSnapshots for a name kept for the first time).
	Snapshots int
	// SaveEvery is the autosave interval; 0 keeps the stored one (none for
	// a new name), AutosaveOff turns it off, AutosaveAuto saves
	// continuously.
	SaveEvery time.Duration
	// CreateFolder makes a missing mirror folder (else it is refused).
	CreateFolder bool
	// MountPoint is where the disk will be mounted: a mirror folder inside
	// it is refused.
	MountPoint string
	// SetAsideKept mirrors a name whose store holds kept work in no folder
	// (ErrKeptWork) anyway: that work stays as a snapshot never pruned.
	SetAsideKept bool
	// InPlace mounts the disk over the mirror folder after its load
	// (CheckInPlace says which folders may be).
	InPlace bool
}

// AutosaveOff is Options.SaveEvery turning autosave off; AutosaveAuto
// saves continuously (State.Continuous).
const (
	AutosaveOff  time.Duration = -1
	AutosaveAuto time.Duration = -2
)

// Continuous saves' timing: a save about ContinuousQuiet after the last
// change, at most ContinuousBusy after the first unsaved one (so that under
// steady writing a write is in a snapshot within about 5 s: the save
// itself takes the rest).
const (
	ContinuousQuiet = 2 * time.Second
	ContinuousBusy  = 3 * time.Second
)

// OptionsFromPreset reads the contents settings of a preset: a preset says
// every setting (0 snapshots: DefaultSnapshots; no interval: no autosave).
func OptionsFromPreset(p ramdisk.Preset) Options {
	o := Options{Mode: p.Contents, MirrorPath: p.MirrorPath, Snapshots: p.Snapshots, SaveEvery: p.SaveInterval(),
		InPlace: p.Contents == ramdisk.Mirror && p.InPlace}
	if o.Snapshots <= 0 {
		o.Snapshots = DefaultSnapshots
	}
	switch {
	case p.SaveAuto:
		o.SaveEvery = AutosaveAuto
	case o.SaveEvery <= 0:
		o.SaveEvery = AutosaveOff
	}
	return o
}

// State returns what is remembered about a disk; ErrNotKept if nothing.
func (k *Keeper) State(name string) (State, error) {
	dir, err := k.diskDir(name)
	if err != nil {
		return State{}, err
	}
	b, err := record.ReadFile(filepath.Join(dir, "state.json"), snapstore.MaxSmall)
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
	var l lastSave
	if record.ReadJSON(filepath.Join(dir, "last.json"), snapstore.MaxSmall, &l) == nil {
		st.LastSave, st.LastSnapshot, st.LastSaveClock = l.Time, l.Snapshot, l.Clock
	}
	return st, nil
}

// lastSave is kept apart from state.json and written without fsync: it is
// information, and losing it in a power cut loses nothing.
type lastSave struct {
	Time     time.Time      `json:"time"`
	Snapshot string         `json:"snapshot"`
	Clock    boottime.Stamp `json:"clock"`
}

func (k *Keeper) noteSave(st State, id string) error {
	return tree.NoSpace(record.WriteJSONFast(filepath.Join(st.Backing, "last.json"), lastSave{Time: time.Now().UTC(), Snapshot: id, Clock: boottime.Now()}))
}

func (k *Keeper) writeState(st State) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return tree.NoSpace(record.Write(filepath.Join(st.Backing, "state.json"), append(b, '\n'), true))
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
	if o.Snapshots < 0 || o.SaveEvery < 0 && o.SaveEvery != AutosaveOff && o.SaveEvery != AutosaveAuto {
		return State{}, errors.New("snapshot count and save interval must not be negative")
	}
	st, err := k.State(name)
	if err != nil && !errors.Is(err, ErrNotKept) {
		return State{}, err
	}
	if errors.Is(err, ErrNotKept) {
		st = State{Name: name, ID: tree.RandomID(), Backing: dir, Snapshots: DefaultSnapshots}
	}
	if work, err := k.keptWork(st, o); err != nil {
		return State{}, err
	} else if work != "" {
		st.SetAside = append(st.SetAside, work)
	}
	st.Mode, st.MirrorPath = o.Mode, o.MirrorPath
	st.InPlace = o.Mode == ramdisk.Mirror && o.InPlace
	switch {
	case o.Snapshots > 0:
		st.Snapshots = o.Snapshots
	case st.Snapshots <= 0:
		st.Snapshots = DefaultSnapshots
	}
	st.SetSaveEvery(o.SaveEvery)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return State{}, tree.NoSpace(fmt.Errorf("make %s: %w", dir, err))
	}
	return st, k.writeState(st)
}

// SetSaveEvery sets st's autosave as Options.SaveEvery says (0 keeps it).
func (st *State) SetSaveEvery(every time.Duration) {
	switch {
	case every == AutosaveOff:
		st.SaveEvery, st.Continuous = 0, false
	case every == AutosaveAuto:
		st.SaveEvery, st.Continuous = 0, true
	case every > 0:
		st.SaveEvery, st.Continuous = max(1, int(every/time.Second)), false
	}
}

// MirrorFolders lists the folders the data folder's stores mirror (their
// disks mounted or not); states that cannot be read are left out.
func (k *Keeper) MirrorFolders() []string {
	if k.Data == "" {
		return nil
	}
	ents, _ := os.ReadDir(filepath.Join(k.Data, "disks"))
	var out []string
	for _, e := range ents {
		if !e.IsDir() || ramdisk.ValidateName(e.Name()) != nil {
			continue
		}
		if st, err := k.State(e.Name()); err == nil && st.Mode == ramdisk.Mirror && filepath.IsAbs(st.MirrorPath) {
			out = append(out, filepath.Clean(st.MirrorPath))
		}
	}
	return out
}

// Forget removes everything kept for a disk: state and snapshots.
func (k *Keeper) Forget(name string) error {
	dir, err := k.diskDir(name)
	if err != nil {
		return err
	}
	return tree.RemoveAll(dir)
}

// CurrentInUse says whether the current snapshot of disk name was taken
// while in use: its label, nil when it was consistent or nothing is saved.
// It reads two small files, so the menu may ask at every refresh.
func (k *Keeper) CurrentInUse(name string) (*snapstore.InUse, error) {
	st, err := k.State(name)
	if err != nil {
		return nil, err
	}
	s := k.store(st)
	cur, err := s.Current()
	if err != nil || cur == "" {
		return nil, err
	}
	return s.InUse(cur)
}
