package snapstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/tree"

	"rambar/internal/atomicfile"
	"rambar/internal/record"
)

// Store is one disk's folder of snapshots (see the package doc for its layout).
type Store struct {
	Dir string
	// DeltaLimit, when set, replaces defaultDeltaLimit (tests force
	// compactions with it).
	DeltaLimit func(baseFiles int) int
	// Pinned are snapshots prune never removes (State.SetAside).
	Pinned map[string]bool
}

// Snapshot describes one saved state.
type Snapshot struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Files   int       `json:"files"`
	Bytes   int64     `json:"bytes"`
	Current bool      `json:"current"`
	// SetAside: kept work set aside when the name was mirrored after it
	// (State.SetAside); never pruned.
	SetAside bool `json:"set_aside,omitempty"`
	// InUse, when set, says it was taken while the disk was in use: the
	// disk never held still during the save (see InUse).
	InUse *InUse `json:"in_use,omitempty"`
	// Safety, when set, says it holds work found nowhere else (saved
	// before a forced restore, or not in its Mirror folder): pruned last.
	Safety *Safety `json:"safety,omitempty"`
}

// ErrNoSnapshot: nothing was saved yet, or no snapshot has that ID.
var ErrNoSnapshot = i18n.New("no such snapshot")

// Path is the path of parts inside the store's folder.
func (s *Store) Path(parts ...string) string {
	return filepath.Join(append([]string{s.Dir}, parts...)...)
}

// Limit is the most changes a delta on a base of baseFiles files may hold.
func (s *Store) Limit(baseFiles int) int {
	if s.DeltaLimit != nil {
		return s.DeltaLimit(baseFiles)
	}
	return defaultDeltaLimit(baseFiles)
}

// Lock takes the store's exclusive lock (flock), so a CLI save and the
// tray's autosave never interleave. It waits until ctx is done.
func (s *Store) Lock(ctx context.Context) (func(), error) {
	_, release, err := record.Lock(ctx, s.Path("lock"), -1)
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return nil, fmt.Errorf("waiting for another save of %s: %w", s.Dir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", s.Dir, err)
	}
	return release, nil
}

// Current returns the current snapshot's ID, "" when nothing was saved.
func (s *Store) Current() (string, error) {
	b, err := ReadBounded(s.Path("current"), MaxSmall)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read current snapshot: %w", err)
	}
	id := strings.TrimSpace(string(b))
	if !ValidID(id) {
		return "", fmt.Errorf("read current snapshot: %q is not a snapshot ID: %w", id, ErrBadManifest)
	}
	return id, nil
}

// Commit makes snapshot id the current one, durably: the commit point of
// a save.
func (s *Store) Commit(id string) error {
	return tree.NoSpace(atomicfile.WriteFile(s.Path("current"), []byte(id+"\n"), 0o600))
}

// Manifest returns snapshot id's whole tree (a delta applied to its base).
func (s *Store) Manifest(id string) (*Manifest, error) { return s.Tree(id, false) }

// Tree reads manifest id and applies it to its base when it is a delta.
// hidden also finds a base kept only for the deltas on it (see prune).
func (s *Store) Tree(id string, hidden bool) (*Manifest, error) {
	m, err := s.ReadFile(id, hidden, true)
	if err != nil {
		return nil, err
	}
	if m.Base == "" {
		if err := checkTree(m.Entries); err != nil {
			return nil, fmt.Errorf("read snapshot %s: %w: %v", id, ErrBadManifest, err)
		}
		return m, nil
	}
	base, err := s.ReadFile(m.Base, true, true)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", id, err)
	}
	if base.Base != "" {
		return nil, fmt.Errorf("read snapshot %s: its base %s is a delta: %w", id, m.Base, ErrBadManifest)
	}
	out := *m
	out.Entries, out.Removed = applyDelta(base.Entries, m.Removed, m.Entries), nil
	if err := checkTree(out.Entries); err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w: %v", id, ErrBadManifest, err)
	}
	return &out, nil
}

// ReadManifest reads listed snapshot id as stored (a delta is not applied);
// with entries false only its header.
func (s *Store) ReadManifest(id string, entries bool) (*Manifest, error) {
	return s.ReadFile(id, false, entries)
}

// headerRead is how much of a manifest is read for its header alone.
const headerRead = 64 << 10

// ReadFile is readManifest that, with hidden, also finds a hidden base.
func (s *Store) ReadFile(id string, hidden, entries bool) (*Manifest, error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("read snapshot %q: not a snapshot ID: %w", id, fs.ErrNotExist)
	}
	// Without its entries only the header is needed: its first bytes, most
	// often (a save with nothing changed reads no more of a large manifest).
	limit := int64(MaxFile)
	if !entries {
		limit = headerRead
	}
	name := s.Path("snapshots", id+".snap")
	b, whole, err := ReadPrefix(name, MaxFile, limit)
	if hidden && errors.Is(err, fs.ErrNotExist) {
		name = s.Path("snapshots", id+".base")
		b, whole, err = ReadPrefix(name, MaxFile, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	m, err := decodeManifest(b, entries)
	if err != nil && !whole {
		if b, err = ReadBounded(name, MaxFile); err != nil {
			return nil, fmt.Errorf("read snapshot %s: %w", id, err)
		}
		m, err = decodeManifest(b, entries)
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return m, nil
}

// StreamManifest writes, atomically, the manifest of header h (Refs
// filled in), its n entries given by each, in order, to put, and its
// removed paths, encoding as it writes. durable adds the fsyncs that make
// it survive a power cut (atomicfile); without them the caller flushes
// before relying on it.
func (s *Store) StreamManifest(h *Header, n int, each func(put func(*tree.Entry) error) error, removed []string, durable bool) error {
	path := s.Path("snapshots", h.ID+".snap")
	return tree.NoSpace(atomicfile.WriteFrom(path, 0o600, durable, func(w io.Writer) error {
		mw := newManifestWriter(w, h, n)
		if err := each(mw.entry); err != nil {
			return err
		}
		return mw.finish(removed)
	}))
}

// ids lists the saved snapshots' IDs, oldest first.
func (s *Store) ids() ([]string, error) { return s.idsOf(".snap") }

// idsOf lists the IDs of the snapshot files ending in ext, oldest first
// (files not named for an ID are not snapshots).
func (s *Store) idsOf(ext string) ([]string, error) {
	ents, err := os.ReadDir(s.Path("snapshots"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if id, ok := strings.CutSuffix(e.Name(), ext); ok && ValidID(id) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Snapshots lists the saved states, oldest first.
func (s *Store) Snapshots() ([]Snapshot, error) {
	cur, err := s.Current()
	if err != nil {
		return nil, err
	}
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	labelled, err := s.idsOf(InUseExt)
	if err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, id := range ids {
		m, err := s.ReadManifest(id, false)
		if err != nil {
			return nil, err
		}
		sn := Snapshot{ID: id, Time: m.Created, Files: m.Files, Bytes: m.Bytes, Current: id == cur, SetAside: s.Pinned[id]}
		if _, ok := slices.BinarySearch(labelled, id); ok {
			if sn.InUse, err = s.InUse(id); err != nil {
				return nil, err
			}
		}
		if sn.Safety, err = s.Safety(id); err != nil {
			return nil, err
		}
		out = append(out, sn)
	}
	return out, nil
}

// Cleanup removes what a save cut short left behind: temporary files,
// manifests never made current, and objects folders no manifest uses.
// It runs under the lock.
func (s *Store) Cleanup() error {
	cur, err := s.Current()
	if err != nil {
		return err
	}
	for _, dir := range []string{s.Dir, s.Path("snapshots")} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	ids, err := s.ids()
	if err != nil {
		return err
	}
	for _, id := range ids {
		if cur == "" || id > cur {
			os.Remove(s.Path("snapshots", id+".snap"))
		}
	}
	// Labels of snapshots never made current, or no longer listed.
	for _, ext := range []string{InUseExt, SafetyExt} {
		labelled, _ := s.idsOf(ext)
		for _, id := range labelled {
			if _, err := os.Lstat(s.Path("snapshots", id+".snap")); err != nil || cur == "" || id > cur {
				os.Remove(s.Path("snapshots", id+ext))
			}
		}
	}
	// Objects of a save that never became current: every save names its
	// objects folder after its own ID, later than the current one.
	objs, _ := os.ReadDir(s.Path("objects"))
	for _, o := range objs {
		if cur == "" || o.Name() > cur {
			if err := os.RemoveAll(s.Path("objects", o.Name())); err != nil {
				return fmt.Errorf("remove unfinished save %s: %w", o.Name(), err)
			}
		}
	}
	return nil
}

// NewID returns a snapshot ID later than after: UTC time to the microsecond.
func NewID(now time.Time, after string) string {
	for {
		id := now.UTC().Format(idLayout)
		if id > after {
			return id
		}
		now = now.Add(time.Microsecond)
	}
}

// NonEmpty reports whether the current snapshot holds anything.
func (s *Store) NonEmpty() (bool, error) {
	cur, err := s.Current()
	if err != nil || cur == "" {
		return false, err
	}
	m, err := s.ReadManifest(cur, false)
	if err != nil {
		return true, err
	}
	// A tree with any file, link or folder besides the root.
	return m.Files > 0 || len(m.Refs) > 0 || s.hasEntries(cur), nil
}

// hasEntries reports whether snapshot id holds anything besides its root.
func (s *Store) hasEntries(id string) bool {
	m, err := s.Manifest(id)
	return err != nil || len(m.Entries) > 1
}

// idLayout is a snapshot ID's: the time it was made, in UTC.
const idLayout = "20060102T150405.000000Z"
