package mirror

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rambar/internal/atomicfile"
	"rambar/ramdisk"
)

// Errors of the Keeper.
var (
	// ErrRefused: a save or restore could destroy data (an empty, unmounted
	// or different disk over a non-empty copy; unsaved changes on the disk);
	// Force overrides.
	ErrRefused = errors.New("refused to protect saved contents")
	// ErrNotKept: the disk is neither kept nor mirrored.
	ErrNotKept = errors.New("contents of this disk are not kept")
)

// DefaultSnapshots is how many saves are kept when a preset says 0.
const DefaultSnapshots = 5

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
}

// Options configure a disk's contents (from a preset or CLI flags).
type Options struct {
	Mode       ramdisk.ContentMode
	MirrorPath string
	Snapshots  int           // 0: DefaultSnapshots
	SaveEvery  time.Duration // 0: no autosave
}

// OptionsFromPreset reads the contents settings of a preset.
func OptionsFromPreset(p ramdisk.Preset) Options {
	return Options{Mode: p.Contents, MirrorPath: p.MirrorPath, Snapshots: p.Snapshots, SaveEvery: p.SaveInterval()}
}

// SaveOptions tune one save.
type SaveOptions struct {
	// Force saves even an empty, unmounted or different disk over a
	// non-empty copy.
	Force    bool
	Progress ProgressFunc
}

// RestoreOptions tune one restore.
type RestoreOptions struct {
	// Snapshot to restore; "" is the current one.
	Snapshot string
	// Force restores over a disk that holds files (they are removed first),
	// even unsaved ones.
	Force    bool
	Progress ProgressFunc
}

// Keeper saves and restores the contents of RAM disks. It is safe to use
// from several goroutines and processes: each disk's store is locked during
// a save or restore.
type Keeper struct {
	// Data is the app's data folder (ramdisk.Paths.Data).
	Data string
	// IsMounted reports whether a folder is a mounted file system. Saving a
	// folder that is not (the disk vanished, leaving its mount point) is
	// refused. Defaults to comparing the folder's device with its parent's.
	IsMounted func(dir string) bool
	// CopyFile, when set, writes each file a restore, load or reclaim puts
	// on a RAM disk, instead of the built-in copy; metadata is applied after.
	// On macOS the app sets it to `ditto --hfsCompression` so the files sit
	// compressed on the disk and take less of its memory.
	CopyFile CopyFunc
}

// CopyFunc copies one regular file's data from src to a new file dst.
type CopyFunc func(ctx context.Context, src, dst string) error

// NewKeeper returns a Keeper storing under data.
func NewKeeper(data string) *Keeper { return &Keeper{Data: data, IsMounted: ramdisk.IsMountPoint} }

func (k *Keeper) diskDir(name string) (string, error) {
	if err := ramdisk.ValidateName(name); err != nil {
		return "", err
	}
	if k.Data == "" {
		return "", errors.New("no data folder: HOME is not set")
	}
	return filepath.Join(k.Data, "disks", name), nil
}

func (k *Keeper) store(st State) *store { return &store{dir: st.Backing, copyFile: k.CopyFile} }

// State returns what is remembered about a disk; ErrNotKept if nothing.
func (k *Keeper) State(name string) (State, error) {
	dir, err := k.diskDir(name)
	if err != nil {
		return State{}, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
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
	if b, err := os.ReadFile(filepath.Join(dir, "last.json")); err == nil {
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
	return writeFast(filepath.Join(st.Backing, "last.json"), b)
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
	case ramdisk.Mirror:
		if !filepath.IsAbs(o.MirrorPath) {
			return State{}, fmt.Errorf("mirror folder must be an absolute path, got %q", o.MirrorPath)
		}
		o.MirrorPath = filepath.Clean(o.MirrorPath)
		if fi, err := os.Stat(o.MirrorPath); err == nil && !fi.IsDir() {
			return State{}, fmt.Errorf("mirror folder %s is a file", o.MirrorPath)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return State{}, fmt.Errorf("mirror folder: %w", err)
		}
		if strings.HasPrefix(o.MirrorPath+"/", filepath.Clean(k.Data)+"/") {
			return State{}, fmt.Errorf("mirror folder %s is inside RAMBar's data folder", o.MirrorPath)
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

// marker returns the id written on the disk, "" if there is none.
func marker(v ramdisk.Volume) string {
	b, err := os.ReadFile(filepath.Join(v.MountPoint, MarkerName))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func writeMarker(v ramdisk.Volume, id string) error {
	p := filepath.Join(v.MountPoint, MarkerName)
	if err := os.WriteFile(p, []byte(id+"\n"), 0o644); err != nil {
		return fmt.Errorf("write marker %s: %w", p, err)
	}
	return nil
}

// Load fills a freshly made disk: the current snapshot of a kept disk, or
// the mirror folder of a mirrored one (then saved as the first snapshot so
// the store and the folder agree). It writes the marker first. A disk too
// small is refused before anything is written.
func (k *Keeper) Load(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (Result, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return Result{}, err
	}
	if err := k.checkEmpty(v); err != nil {
		return Result{}, err
	}
	if err := writeMarker(v, st.ID); err != nil {
		return Result{}, err
	}
	var res Result
	switch st.Mode {
	case ramdisk.Keep:
		cur, err := k.store(st).current()
		if err != nil {
			return Result{}, err
		}
		if cur == "" {
			return Result{Unchanged: true}, nil
		}
		if res, err = k.store(st).restore(ctx, "", v.MountPoint, st.ID, progress); err != nil {
			return res, fmt.Errorf("restore %s from %s: %w", v.Name, st.Backing, err)
		}
	case ramdisk.Mirror:
		if _, err := os.Stat(st.MirrorPath); errors.Is(err, fs.ErrNotExist) {
			return Result{Unchanged: true}, nil
		}
		items, err := scan(st.MirrorPath)
		if err != nil {
			return Result{}, fmt.Errorf("load %s: %w", st.MirrorPath, err)
		}
		entries := make([]Entry, 0, len(items))
		for _, it := range items {
			e, err := entryOf(st.MirrorPath, it)
			if err != nil {
				return Result{}, fmt.Errorf("load %s: %w", st.MirrorPath, err)
			}
			entries = append(entries, e)
		}
		src := func(e Entry) string { return filepath.Join(st.MirrorPath, filepath.FromSlash(e.Path)) }
		if err := restoreTree(ctx, entries, src, v.MountPoint, progress, k.CopyFile); err != nil {
			return Result{}, fmt.Errorf("load %s into %s: %w", st.MirrorPath, v.Name, err)
		}
		// The folder's state becomes the first snapshot: from now on the
		// store knows it and saves are incremental.
		if res, err = k.store(st).save(ctx, v.MountPoint, st.ID, st.Snapshots, nil); err != nil {
			return res, err
		}
	}
	return res, k.noteSave(st, res.Snapshot)
}

// checkEmpty refuses to load into a disk that already holds files.
func (k *Keeper) checkEmpty(v ramdisk.Volume) error {
	ents, err := os.ReadDir(v.MountPoint)
	if err != nil {
		return fmt.Errorf("read %s: %w", v.MountPoint, err)
	}
	for _, e := range ents {
		if !skipAtRoot[e.Name()] {
			return fmt.Errorf("%w: %s already holds files (%s); restoring would overwrite them", ErrRefused, v.Name, e.Name())
		}
	}
	return nil
}

// Save saves a mounted disk's contents into its store (and writes a Mirror
// folder back). It refuses, unless o.Force, to save an unmounted disk, a
// disk whose marker does not match (another disk of the same name), or an
// empty disk over a non-empty copy.
func (k *Keeper) Save(ctx context.Context, v ramdisk.Volume, o SaveOptions) (Result, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return Result{}, err
	}
	s := k.store(st)
	backed, err := s.nonEmpty()
	if err != nil {
		return Result{}, err
	}
	if !o.Force && backed {
		if err := k.guard(v, st); err != nil {
			return Result{}, err
		}
	}
	if _, err := os.Stat(v.MountPoint); err != nil {
		return Result{}, fmt.Errorf("save %s: %w", v.Name, err)
	}
	if marker(v) != st.ID {
		if err := writeMarker(v, st.ID); err != nil {
			return Result{}, err
		}
	}
	res, err := s.save(ctx, v.MountPoint, st.ID, st.Snapshots, o.Progress)
	if err != nil {
		return res, fmt.Errorf("save %s to %s: %w", v.Name, st.Backing, err)
	}
	if st.Mode == ramdisk.Mirror {
		if err := k.publish(ctx, st, res.Snapshot); err != nil {
			return res, fmt.Errorf("saved %s to %s, but writing %s failed (it is unchanged): %w", v.Name, st.Backing, st.MirrorPath, err)
		}
	}
	return res, k.noteSave(st, res.Snapshot)
}

// guard refuses a save that could replace good contents with nothing.
func (k *Keeper) guard(v ramdisk.Volume, st State) error {
	if k.IsMounted != nil && !k.IsMounted(v.MountPoint) {
		return fmt.Errorf("%w: %s is not mounted at %s; saving it would replace the saved copy in %s (use --force to save anyway)",
			ErrRefused, v.Name, v.MountPoint, st.Backing)
	}
	if m := marker(v); m != st.ID {
		what := "has no RAMBar marker"
		if m != "" {
			what = "is a different disk (marker " + m + ")"
		}
		return fmt.Errorf("%w: %s %s; saving it would replace the saved copy in %s (use --force to save anyway)",
			ErrRefused, v.Name, what, st.Backing)
	}
	ents, err := os.ReadDir(v.MountPoint)
	if err != nil {
		return fmt.Errorf("read %s: %w", v.MountPoint, err)
	}
	for _, e := range ents {
		if !skipAtRoot[e.Name()] {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is empty; saving it would empty the saved copy in %s (use --force to save anyway)",
		ErrRefused, v.Name, st.Backing)
}

// nonEmpty reports whether the current snapshot holds anything.
func (s *store) nonEmpty() (bool, error) {
	cur, err := s.current()
	if err != nil || cur == "" {
		return false, err
	}
	m, err := s.readManifest(cur, false)
	if err != nil {
		return true, err
	}
	// A tree with any file, link or folder besides the root.
	return m.Files > 0 || len(m.Refs) > 0 || s.hasEntries(cur), nil
}

// Restore puts a snapshot back on a mounted disk. A disk holding files is
// refused unless o.Force (its files are then removed first); the room
// needed is checked before anything is written.
func (k *Keeper) Restore(ctx context.Context, v ramdisk.Volume, o RestoreOptions) (Result, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return Result{}, err
	}
	s := k.store(st)
	m, err := s.resolve(o.Snapshot)
	if err != nil {
		return Result{}, err
	}
	if err := k.checkEmpty(v); err != nil {
		if !o.Force {
			return Result{}, fmt.Errorf("%w (use --force to replace them)", err)
		}
		// Check the room before removing anything: what the disk holds now
		// is freed by the clearing.
		free, err := freeSpace(v.MountPoint)
		if err != nil {
			return Result{}, err
		}
		held := int64(0)
		if items, err := scan(v.MountPoint); err == nil {
			for _, it := range items {
				held += it.id.Size
			}
		}
		if n := need(m.Entries); n > free+held {
			return Result{}, fmt.Errorf("restore %s: %w: needs %s, the disk has %s; nothing was changed",
				v.Name, ramdisk.ErrNoSpace, ramdisk.Size(n).Short(), ramdisk.Size(free+held).Short())
		}
		if err := clearDisk(v.MountPoint); err != nil {
			return Result{}, err
		}
	}
	if err := writeMarker(v, st.ID); err != nil {
		return Result{}, err
	}
	res, err := s.restore(ctx, m.ID, v.MountPoint, st.ID, o.Progress)
	if err != nil {
		return res, fmt.Errorf("restore %s from %s: %w", v.Name, st.Backing, err)
	}
	return res, nil
}

func clearDisk(root string) error {
	ents, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if skipAtRoot[e.Name()] {
			continue
		}
		if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
			return fmt.Errorf("clear %s: %w", root, err)
		}
	}
	return nil
}

// Snapshots lists a disk's saved states, oldest first.
func (k *Keeper) Snapshots(name string) ([]Snapshot, error) {
	st, err := k.State(name)
	if err != nil {
		return nil, err
	}
	return k.store(st).snapshots()
}

// Dirty reports whether a mounted disk has changes not yet saved: any path
// added, removed or changed (by identity: inode, ctime, mtime, size, mode)
// since the last save or restore. Files are not read.
func (k *Keeper) Dirty(v ramdisk.Volume) (bool, error) {
	st, err := k.State(v.Name)
	if err != nil {
		return false, err
	}
	s := k.store(st)
	idx := s.loadIndex()
	cur, err := s.current()
	if err != nil {
		return false, err
	}
	if idx == nil || idx.DiskID != st.ID || idx.Snapshot != cur || marker(v) != st.ID {
		return true, nil
	}
	items, err := scan(v.MountPoint)
	if err != nil {
		return false, err
	}
	return !idx.matches(items), nil
}

// hasEntries reports whether snapshot id holds anything besides its root.
func (s *store) hasEntries(id string) bool {
	m, err := s.manifest(id)
	return err != nil || len(m.Entries) > 1
}
