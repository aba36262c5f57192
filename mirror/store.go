package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
	"rambar/ramdisk"
)

// store is one disk's folder of snapshots (see the package doc for its layout).
type store struct {
	dir string
	// copyFile, when set, writes restored files (Keeper.CopyFile).
	copyFile CopyFunc
}

// manifest is one save: the whole tree, or (a delta, Base set) the paths
// added or changed since the full manifest Base and the paths removed since.
// On disk (codec.go) the header comes first, so listing and pruning read
// the header only.
type manifest struct {
	header
	Entries []Entry
	// Removed lists, in a delta, the paths of Base that are gone.
	Removed []string
}

type header struct {
	ID      string
	Created time.Time
	Files   int   // regular files of the whole tree
	Bytes   int64 // their total size
	// Base is, for a delta, the full manifest it records changes to.
	Base string
	// Refs lists, per save, the numbers of the objects this manifest's
	// entries use (a delta's Base lists the rest).
	Refs map[string][]uint32
}

// Snapshot describes one saved state.
type Snapshot struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Files   int       `json:"files"`
	Bytes   int64     `json:"bytes"`
	Current bool      `json:"current"`
}

// Result says what a save or restore did.
type Result struct {
	Snapshot    string        `json:"snapshot"`          // the snapshot saved or restored
	Unchanged   bool          `json:"unchanged"`         // nothing had changed: no new snapshot
	Files       int           `json:"files"`             // regular files in the tree
	Bytes       int64         `json:"bytes"`             // their total size
	CopiedFiles int           `json:"copied_files"`      // files whose bytes were copied
	CopiedBytes int64         `json:"copied_bytes"`      // bytes copied
	Removed     int           `json:"removed,omitempty"` // paths gone since the previous save
	Took        time.Duration `json:"took_ns"`
}

func (s *store) path(parts ...string) string {
	return filepath.Join(append([]string{s.dir}, parts...)...)
}

// lock takes the store's exclusive lock (flock), so a CLI save and the
// tray's autosave never interleave. It waits until ctx is done.
func (s *store) lock(ctx context.Context) (func(), error) {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return nil, fmt.Errorf("make %s: %w", s.dir, err)
	}
	f, err := os.OpenFile(s.path("lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() { unix.Flock(int(f.Fd()), unix.LOCK_UN); f.Close() }, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("flock %s: %w", s.path("lock"), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another save of %s: %w", s.dir, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// current returns the current snapshot's ID, "" when nothing was saved.
func (s *store) current() (string, error) {
	b, err := os.ReadFile(s.path("current"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read current snapshot: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// manifest returns snapshot id's whole tree (a delta applied to its base).
func (s *store) manifest(id string) (*manifest, error) { return s.tree(id, false) }

// tree reads manifest id and applies it to its base when it is a delta.
// hidden also finds a base kept only for the deltas on it (see prune).
func (s *store) tree(id string, hidden bool) (*manifest, error) {
	m, err := s.readFile(id, hidden, true)
	if err != nil || m.Base == "" {
		return m, err
	}
	base, err := s.readFile(m.Base, true, true)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", id, err)
	}
	if base.Base != "" {
		return nil, fmt.Errorf("read snapshot %s: its base %s is a delta: %w", id, m.Base, errBadManifest)
	}
	out := *m
	out.Entries, out.Removed = applyDelta(base.Entries, m.Removed, m.Entries), nil
	return &out, nil
}

// applyDelta returns base (in pathLess order) without the removed paths
// and with sets (in pathLess order) added or replacing their paths.
func applyDelta(base []Entry, removed []string, sets []Entry) []Entry {
	gone := make(map[string]bool, len(removed))
	for _, p := range removed {
		gone[p] = true
	}
	out := make([]Entry, 0, len(base)+len(sets))
	j := 0
	for _, e := range base {
		for j < len(sets) && pathLess(sets[j].Path, e.Path) {
			out = append(out, sets[j])
			j++
		}
		if j < len(sets) && sets[j].Path == e.Path {
			out = append(out, sets[j])
			j++
			continue
		}
		if !gone[e.Path] {
			out = append(out, e)
		}
	}
	return append(out, sets[j:]...)
}

// readManifest reads listed snapshot id as stored (a delta is not applied);
// with entries false only its header.
func (s *store) readManifest(id string, entries bool) (*manifest, error) {
	return s.readFile(id, false, entries)
}

// readFile is readManifest that, with hidden, also finds a hidden base.
func (s *store) readFile(id string, hidden, entries bool) (*manifest, error) {
	b, err := os.ReadFile(s.path("snapshots", id+".snap"))
	if hidden && errors.Is(err, fs.ErrNotExist) {
		b, err = os.ReadFile(s.path("snapshots", id+".base"))
	}
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	m, err := decodeManifest(b, entries)
	if err != nil {
		return nil, fmt.Errorf("read snapshot %s: %w", id, err)
	}
	return m, nil
}

// writeManifest writes m (with its Refs filled in) atomically. durable adds
// the fsyncs that make it survive a power cut (atomicfile); without them the
// caller flushes before relying on it.
func (s *store) writeManifest(m *manifest, durable bool) error {
	m.Refs = map[string][]uint32{}
	for _, e := range m.Entries {
		if save, num, ok := strings.Cut(e.Obj, "/"); ok {
			num, _, _ = strings.Cut(num, "@") // a packed file: its pack
			n, _ := strconv.ParseUint(num, 10, 32)
			m.Refs[save] = append(m.Refs[save], uint32(n))
		}
	}
	b := encodeManifest(m)
	path := s.path("snapshots", m.ID+".snap")
	if durable {
		return noSpace(atomicfile.WriteFile(path, b, 0o600))
	}
	return writeFast(path, b)
}

// objPath is where e's bytes are: its object file, or for a file packed
// with others (Obj "SAVE/N@OFFSET") the pack, a NUL, the offset, a NUL and
// the size, which copyData reads (a NUL is never part of a real path).
func (s *store) objPath(e Entry) string {
	obj, off, packed := strings.Cut(e.Obj, "@")
	p := s.path("objects", obj)
	if packed {
		p += "\x00" + off + "\x00" + strconv.FormatInt(e.Size, 10)
	}
	return p
}

// Small files a delta save copies are packed: written one after another
// into a few pack objects instead of one object each, since creating a
// file on the store's disk costs far more than writing a few KiB.
const (
	packMax   = 64 << 10 // files up to this size are packed
	packBytes = 8 << 20  // a pack is closed past this size
)

// packGroups splits the small files of toCopy into packs (each at least 2
// files, at most about packBytes) and returns them and the other files.
func packGroups(toCopy []*Entry) (packs [][]*Entry, single []*Entry) {
	var small []*Entry
	for _, e := range toCopy {
		if e.Size <= packMax {
			small = append(small, e)
		} else {
			single = append(single, e)
		}
	}
	var cur []*Entry
	var size int64
	for _, e := range small {
		cur = append(cur, e)
		if size += e.Size; size >= packBytes {
			packs, cur, size = append(packs, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		packs = append(packs, cur)
	}
	// A pack of one is just an object.
	for i := 0; i < len(packs); i++ {
		if len(packs[i]) == 1 {
			single = append(single, packs[i][0])
			packs = append(packs[:i], packs[i+1:]...)
			i--
		}
	}
	return packs, single
}

// writePack copies the files of group into a new pack object at path,
// one after another, setting each entry's Obj (obj@offset) and Size.
func writePack(root, path, obj string, group []*Entry, sync bool) (int64, error) {
	out, err := openRetry(path, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return 0, noSpace(fmt.Errorf("create %s: %w", path, err))
	}
	var off int64
	err = func() error {
		for _, e := range group {
			src := filepath.Join(root, filepath.FromSlash(e.Path))
			in, err := openRetry(src, unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("open %s: %w", src, err)
			}
			n, err := kernelCopy(out, in, false)
			unix.Close(in)
			if err != nil {
				return noSpace(fmt.Errorf("copy %s to %s: %w", src, path, err))
			}
			e.Obj, e.Size = obj+"@"+strconv.FormatInt(off, 10), n
			off += n
		}
		if sync {
			return retryEINTR(func() error { return unix.Fsync(out) })
		}
		return nil
	}()
	if cerr := unix.Close(out); err == nil && cerr != nil {
		err = noSpace(fmt.Errorf("write %s: %w", path, cerr))
	}
	return off, err
}

// writeFast replaces path atomically without waiting for the disk: after a
// crash it is the old file, the new one, or (power cut) possibly empty, so
// it is only for files that are checked when read and can be lost.
func writeFast(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return noSpace(fmt.Errorf("create temp for %s: %w", path, err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return noSpace(fmt.Errorf("write %s: %w", path, err))
	}
	return nil
}

// ids lists the saved snapshots' IDs, oldest first.
func (s *store) ids() ([]string, error) { return s.idsOf(".snap") }

// idsOf lists the IDs of the snapshot files ending in ext, oldest first.
func (s *store) idsOf(ext string) ([]string, error) {
	ents, err := os.ReadDir(s.path("snapshots"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ext) && !strings.HasPrefix(n, ".") {
			ids = append(ids, strings.TrimSuffix(n, ext))
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// snapshots lists the saved states, oldest first.
func (s *store) snapshots() ([]Snapshot, error) {
	cur, err := s.current()
	if err != nil {
		return nil, err
	}
	ids, err := s.ids()
	if err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, id := range ids {
		m, err := s.readManifest(id, false)
		if err != nil {
			return nil, err
		}
		out = append(out, Snapshot{ID: id, Time: m.Created, Files: m.Files, Bytes: m.Bytes, Current: id == cur})
	}
	return out, nil
}

// cleanup removes what a save cut short left behind: temporary files,
// manifests never made current, and objects folders no manifest uses.
// It runs under the lock.
func (s *store) cleanup() error {
	cur, err := s.current()
	if err != nil {
		return err
	}
	for _, dir := range []string{s.dir, s.path("snapshots")} {
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
			os.Remove(s.path("snapshots", id+".snap"))
		}
	}
	// Objects of a save that never became current: every save names its
	// objects folder after its own ID, later than the current one.
	objs, _ := os.ReadDir(s.path("objects"))
	for _, o := range objs {
		if cur == "" || o.Name() > cur {
			if err := os.RemoveAll(s.path("objects", o.Name())); err != nil {
				return fmt.Errorf("remove unfinished save %s: %w", o.Name(), err)
			}
		}
	}
	return nil
}

// newID returns a snapshot ID later than after: UTC time to the microsecond.
func newID(now time.Time, after string) string {
	for {
		id := now.UTC().Format("20060102T150405.000000Z")
		if id > after {
			return id
		}
		now = now.Add(time.Microsecond)
	}
}

func sameDev(a, b string) bool {
	var x, y unix.Stat_t
	return unix.Stat(a, &x) == nil && unix.Stat(b, &y) == nil && x.Dev == y.Dev
}

func sameMeta(a, b Entry) bool {
	if a.Path != b.Path || a.Kind != b.Kind || a.Mode != b.Mode || a.Size != b.Size || a.MTime != b.MTime || a.Link != b.Link || len(a.Xattr) != len(b.Xattr) {
		return false
	}
	for k, v := range a.Xattr {
		if w, ok := b.Xattr[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// deltaLimit is the most entries plus removed paths a delta on a base of
// baseFiles files may hold; a save that would make a bigger one writes a
// full manifest instead (the compaction), and later deltas build on that.
var deltaLimit = func(baseFiles int) int { return 256 + baseFiles/2 }

// save makes root's tree the store's new current snapshot, copying only the
// files whose identity changed since the snapshot the index describes, and
// keeps the newest keepN snapshots.
//
// When the index is exact (see index) and the change is small, the new
// manifest is a delta: it holds only what changed since a full manifest,
// so neither the old tree is read nor the whole new one written. The delta
// on a delta is built by merging the previous delta's changes with the new
// ones, so every delta is one step from its full base.
func (s *store) save(ctx context.Context, root, diskID string, keepN int, progress ProgressFunc) (Result, error) {
	start := time.Now()
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	if err := s.cleanup(); err != nil {
		return Result{}, err
	}
	curID, err := s.current()
	if err != nil {
		return Result{}, err
	}
	idx := s.loadIndex()
	if idx != nil && (idx.DiskID != diskID || idx.Snapshot == "") {
		idx = nil
	}
	items, err := scan(root)
	if err != nil {
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	// Nothing changed since the current snapshot was saved or restored:
	// done, without reading a file or even the manifest.
	if idx != nil && curID != "" && idx.Snapshot == curID && idx.matches(items) {
		h, err := s.readManifest(curID, false)
		if err != nil {
			return Result{}, err
		}
		return Result{Snapshot: curID, Unchanged: true, Files: h.Files, Bytes: h.Bytes, Took: time.Since(start)}, nil
	}
	// same[i]: items[i] has the identity the index recorded; gone: indexed
	// paths no longer on the disk.
	same := make([]bool, len(items))
	var gone []string
	changed := len(items)
	if idx != nil {
		xi := 0
		for i, it := range items {
			for xi < len(idx.Paths) && pathLess(idx.Paths[xi], it.rel) {
				gone = append(gone, idx.Paths[xi])
				xi++
			}
			if xi < len(idx.Paths) && idx.Paths[xi] == it.rel {
				if same[i] = idx.Idents[xi] == it.id; same[i] {
					changed--
				}
				xi++
			}
		}
		gone = append(gone, idx.Paths[xi:]...)
	}
	var delta *manifest // the previous changes a new delta builds on; nil: a full manifest
	if idx != nil && idx.Exact {
		delta = s.deltaBase(idx.Snapshot, changed+len(gone))
	}

	id := newID(time.Now(), curID)
	objDir := s.path("objects", id)
	var entries []Entry // the new manifest's entries
	var toCopy []*Entry
	var res Result
	entryAt := func(it scanned) (Entry, error) {
		e, err := entryOf(root, it)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return e, fmt.Errorf("save %s: %s changed during the save, try again: %w", root, it.rel, err)
			}
			return e, fmt.Errorf("save %s: %w", root, err)
		}
		return e, nil
	}
	if delta != nil {
		fresh := make([]Entry, 0, changed)
		for i, it := range items {
			if kindOf(it.id.Mode) == KindFile {
				res.Files++
				res.Bytes += it.id.Size
			}
			if same[i] {
				continue
			}
			e, err := entryAt(it)
			if err != nil {
				return Result{}, err
			}
			fresh = append(fresh, e)
		}
		entries, delta.Removed = mergeDelta(delta, fresh, gone)
		res.Removed = len(gone)
		for i := range entries {
			if e := &entries[i]; e.Kind == KindFile && e.Obj == "" {
				toCopy = append(toCopy, e)
			}
		}
	} else {
		// prev is the snapshot the disk's files were last known to match; its
		// entries are reused for every path whose identity is unchanged.
		var prev *manifest
		if idx != nil {
			if prev, err = s.tree(idx.Snapshot, true); err != nil {
				prev = nil
			}
		}
		entries = make([]Entry, len(items))
		pi := 0
		for i, it := range items {
			if same[i] && prev != nil {
				for pi < len(prev.Entries) && pathLess(prev.Entries[pi].Path, it.rel) {
					pi++
				}
				if pi < len(prev.Entries) && prev.Entries[pi].Path == it.rel {
					entries[i] = prev.Entries[pi]
					continue
				}
			}
			e, err := entryAt(it)
			if err != nil {
				return Result{}, err
			}
			entries[i] = e
		}
		for i := range entries {
			if e := &entries[i]; e.Kind == KindFile && e.Obj == "" {
				toCopy = append(toCopy, e)
			}
		}
		if prev != nil && prev.ID == curID {
			res.Removed = removed(prev.Entries, entries)
		} else if curID != "" {
			if cur, err := s.manifest(curID); err == nil {
				res.Removed = removed(cur.Entries, entries)
			}
		}
		prev = nil // let the old tree go before copying
	}
	var copyBytes int64
	for _, e := range toCopy {
		copyBytes += e.Size
	}
	res.Bytes -= copyBytes // counted again below as copied

	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return Result{}, noSpace(fmt.Errorf("save %s: make %s: %w", root, objDir, err))
	}
	fail := func(err error) (Result, error) {
		os.RemoveAll(objDir)
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	clone := sameDev(root, objDir)
	m := newMeter(progress, "saving", copyBytes, len(toCopy))
	var packs [][]*Entry
	single := toCopy
	if delta != nil {
		packs, single = packGroups(toCopy)
	}
	err = pool(len(packs)+len(single), workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		obj := id + "/" + strconv.Itoa(k)
		if k < len(packs) {
			n, err := writePack(root, s.path("objects", obj), obj, packs[k], syncEachFile)
			if err != nil {
				return err
			}
			m.add(n, len(packs[k]))
			return nil
		}
		e := single[k-len(packs)]
		n, _, err := copyData(filepath.Join(root, filepath.FromSlash(e.Path)), s.path("objects", obj), clone, syncEachFile, 0, nil)
		if err != nil {
			return err
		}
		e.Obj = obj
		e.Size = n // the bytes kept; a file growing under us is seen again next save
		m.add(n, 1)
		return nil
	})
	m.done()
	if err != nil {
		return fail(err)
	}
	res.CopiedFiles = len(toCopy)
	for _, e := range toCopy {
		res.CopiedBytes += e.Size
	}
	res.Bytes += res.CopiedBytes
	mf := &manifest{header: header{ID: id, Created: time.Now().UTC()}, Entries: entries}
	if delta != nil {
		mf.Base, mf.Removed = delta.Base, delta.Removed
	} else {
		res.Files, res.Bytes = 0, 0
		for _, e := range entries {
			if e.Kind == KindFile {
				res.Files++
				res.Bytes += e.Size
			}
		}
	}
	mf.Files, mf.Bytes = res.Files, res.Bytes
	if err := os.MkdirAll(s.path("snapshots"), 0o700); err != nil {
		return fail(noSpace(err))
	}
	// Objects and manifest reach stable storage before current names them:
	// on Linux one syncfs covers both; elsewhere each file was fsynced as
	// written and the manifest is written with fsyncs.
	err = s.writeManifest(mf, syncEachFile)
	if err == nil {
		err = flushTree(s.dir, nil)
		if syncEachFile && err == nil {
			err = atomicfile.SyncDir(objDir)
		}
	}
	if err != nil {
		os.Remove(s.path("snapshots", id+".snap"))
		return fail(err)
	}
	// The commit point: from here the new tree is the current one.
	if err := noSpace(atomicfile.WriteFile(s.path("current"), []byte(id+"\n"), 0o600)); err != nil {
		os.Remove(s.path("snapshots", id+".snap"))
		return fail(err)
	}
	res.Snapshot = id
	_ = s.writeIndex(indexOf(id, diskID, items))
	if err := s.prune(keepN); err != nil {
		return res, fmt.Errorf("saved %s, but removing old snapshots failed: %w", id, err)
	}
	res.Took = time.Since(start)
	return res, nil
}

// deltaBase returns what a delta on snapshot base builds on: base's own
// changes when it is a delta, none when it is a full manifest. It returns
// nil (write a full manifest) when base cannot be read or the delta, with
// about n more changes, would pass deltaLimit.
func (s *store) deltaBase(base string, n int) *manifest {
	h, err := s.readFile(base, true, false)
	if err != nil {
		return nil
	}
	prev := &manifest{header: header{Base: base}}
	if h.Base != "" {
		if prev, err = s.readFile(base, true, true); err != nil {
			return nil
		}
		if h, err = s.readFile(prev.Base, true, false); err != nil || h.Base != "" {
			return nil
		}
	}
	if len(prev.Entries)+len(prev.Removed)+n > deltaLimit(h.Files) {
		return nil
	}
	return prev
}

// mergeDelta folds the changes since prev's snapshot (fresh entries, gone
// paths; pathLess order) into prev's delta: the new delta's entries (fresh
// ones replacing prev's, gone ones dropped) and removed paths.
func mergeDelta(prev *manifest, fresh []Entry, gone []string) ([]Entry, []string) {
	isGone := make(map[string]bool, len(gone))
	for _, p := range gone {
		isGone[p] = true
	}
	kept := make([]Entry, 0, len(prev.Entries))
	for _, e := range prev.Entries {
		if !isGone[e.Path] {
			kept = append(kept, e)
		}
	}
	entries := applyDelta(kept, nil, fresh)
	set := make(map[string]bool, len(fresh))
	for _, e := range fresh {
		set[e.Path] = true
	}
	seen := map[string]bool{}
	var rm []string
	for _, list := range [][]string{prev.Removed, gone} {
		for _, p := range list {
			if !set[p] && !seen[p] {
				seen[p] = true
				rm = append(rm, p)
			}
		}
	}
	sort.Slice(rm, func(i, j int) bool { return pathLess(rm[i], rm[j]) })
	return entries, rm
}

// removed counts the paths of old (in pathLess order) missing from now.
func removed(old, now []Entry) int {
	n, j := 0, 0
	for _, e := range old {
		for j < len(now) && pathLess(now[j].Path, e.Path) {
			j++
		}
		if j >= len(now) || now[j].Path != e.Path {
			n++
		}
	}
	return n
}

// prune keeps the newest keepN snapshots (always the current one) and
// removes the objects only older snapshots used, reading manifest headers
// only. A dropped full manifest that a kept delta is based on is renamed
// ID.base instead: no longer listed or restorable by ID, but kept until no
// delta needs it.
func (s *store) prune(keepN int) error {
	if keepN < 1 {
		keepN = 1
	}
	ids, err := s.ids()
	if err != nil || len(ids) <= keepN {
		return err
	}
	hidden, err := s.idsOf(".base")
	if err != nil {
		return err
	}
	drop, keep := ids[:len(ids)-keepN], ids[len(ids)-keepN:]
	used := map[string]map[uint32]bool{}
	note := func(h *manifest) {
		for save, nums := range h.Refs {
			if used[save] == nil {
				used[save] = map[uint32]bool{}
			}
			for _, n := range nums {
				used[save][n] = true
			}
		}
	}
	bases := map[string]bool{}
	for _, id := range keep {
		h, err := s.readManifest(id, false)
		if err != nil {
			return err
		}
		note(h)
		if h.Base != "" {
			bases[h.Base] = true
		}
	}
	for b := range bases {
		h, err := s.readFile(b, true, false)
		if err != nil {
			return err
		}
		note(h)
	}
	remove := func(id, ext string) error {
		if err := os.Remove(s.path("snapshots", id+ext)); err != nil {
			return fmt.Errorf("remove snapshot %s: %w", id, err)
		}
		return nil
	}
	for _, id := range drop {
		if bases[id] {
			if err := os.Rename(s.path("snapshots", id+".snap"), s.path("snapshots", id+".base")); err != nil {
				return fmt.Errorf("keep base of later snapshots %s: %w", id, err)
			}
			continue
		}
		if err := remove(id, ".snap"); err != nil {
			return err
		}
	}
	for _, id := range hidden {
		if !bases[id] {
			if err := remove(id, ".base"); err != nil {
				return err
			}
		}
	}
	// Objects: a kept snapshot's own folder holds only objects it uses;
	// every other folder keeps just the objects a kept snapshot names
	// (a save's objects outlive it while later trees share them).
	cur, err := s.current()
	if err != nil {
		return err
	}
	retained := map[string]bool{}
	for _, id := range keep {
		retained[id] = true
	}
	for b := range bases {
		retained[b] = true
	}
	dirs, _ := os.ReadDir(s.path("objects"))
	for _, d := range dirs {
		id := d.Name()
		if retained[id] || id > cur {
			continue
		}
		dir := s.path("objects", id)
		if len(used[id]) == 0 {
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("remove objects of %s: %w", id, err)
			}
			continue
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			n, err := strconv.ParseUint(e.Name(), 10, 32)
			if err == nil && used[id][uint32(n)] {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("remove object: %w", err)
			}
		}
	}
	return nil
}

// freeSpace returns the bytes available to an unprivileged writer at path.
func freeSpace(path string) (int64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, fmt.Errorf("statfs %s: %w", path, err)
	}
	return int64(st.Bavail) * int64(st.Bsize), nil
}

// restore writes snapshot id ("" = current) into dst, which must be empty
// apart from the marker. With a diskID it records the restored files'
// identities, so the next save of that disk copies nothing unchanged. It checks first that dst has room; nothing is
// written when it has not. Files are copied (or reflinked), never hard
// linked, so the disk never shares an inode with the store.
func (s *store) restore(ctx context.Context, id, dst, diskID string, progress ProgressFunc) (Result, error) {
	start := time.Now()
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	m, err := s.resolve(id)
	if err != nil {
		return Result{}, err
	}
	id = m.ID
	if err := restoreTree(ctx, m.Entries, s.objPath, dst, progress, s.copyFile); err != nil {
		return Result{}, err
	}
	if diskID != "" {
		items, err := scan(dst)
		if err != nil {
			return Result{}, err
		}
		_ = s.writeIndex(restoredIndex(id, diskID, m.Entries, items))
	}
	return Result{Snapshot: id, Files: m.Files, Bytes: m.Bytes, CopiedFiles: m.Files, CopiedBytes: m.Bytes, Took: time.Since(start)}, nil
}

// restoredIndex is the exact index of a restore of snapshot id: the
// snapshot's paths (entries), with the identities the disk now shows
// (items); a path the disk lacks gets none, so the next save records it as
// removed, and a path only the disk has is not indexed, so it is saved.
func restoredIndex(id, diskID string, entries []Entry, items []scanned) *index {
	x := &index{Snapshot: id, DiskID: diskID, Exact: true, Paths: make([]string, len(entries)), Idents: make([]ident, len(entries))}
	j := 0
	for i, e := range entries {
		x.Paths[i] = e.Path
		for j < len(items) && pathLess(items[j].rel, e.Path) {
			j++
		}
		if j < len(items) && items[j].rel == e.Path {
			x.Idents[i] = items[j].id
		}
	}
	return x
}

// resolve loads snapshot id, or the current one when id is "".
func (s *store) resolve(id string) (*manifest, error) {
	if id == "" {
		cur, err := s.current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			return nil, fmt.Errorf("restore: nothing saved yet: %w", ErrNoSnapshot)
		}
		id = cur
	}
	m, err := s.manifest(id)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("restore: snapshot %s: %w", id, ErrNoSnapshot)
		}
		return nil, err
	}
	return m, nil
}

// need is the room a tree takes: its bytes plus a block per entry.
func need(entries []Entry) int64 {
	var n int64
	for _, e := range entries {
		n += 4096
		if e.Kind == KindFile {
			n += e.Size
		}
	}
	return n
}

// restoreTree recreates entries under dst, reading each file's bytes from
// src(e). It refuses before writing anything when dst lacks the room.
// copyFile, when set, writes each file's data (see Keeper.CopyFile).
func restoreTree(ctx context.Context, entries []Entry, src func(Entry) string, dst string, progress ProgressFunc, copyFile CopyFunc) error {
	return buildTree(ctx, entries, src, dst, progress, true, nil, copyFile)
}

// buildTree is restoreTree with two knobs: checkSpace, and reuse, which may
// name an identical file to hard-link instead of copying (write-back to a
// mirror folder links unchanged files from the folder it replaces; a RAM
// disk never gets links).
func buildTree(ctx context.Context, entries []Entry, src func(Entry) string, dst string, progress ProgressFunc,
	checkSpace bool, reuse func(Entry) string, copyFile CopyFunc) error {
	var files []int
	for i, e := range entries {
		if e.Kind == KindFile {
			files = append(files, i)
		}
	}
	need := need(entries)
	free, err := freeSpace(dst)
	if err != nil {
		return err
	}
	if checkSpace && need > free {
		return fmt.Errorf("restore into %s: %w: needs %s, %s free; nothing was written",
			dst, ramdisk.ErrNoSpace, ramdisk.Size(need).Short(), ramdisk.Size(free).Short())
	}
	at := func(e Entry) string { return filepath.Join(dst, filepath.FromSlash(e.Path)) }
	for _, e := range entries {
		if e.Kind == KindDir && e.Path != "." {
			if err := os.Mkdir(at(e), 0o700); err != nil {
				if fi, serr := os.Lstat(at(e)); serr == nil && fi.IsDir() {
					continue // already there; its metadata is set below
				}
				return noSpace(fmt.Errorf("restore: %w", err))
			}
		}
	}
	var bytesTotal int64
	for _, i := range files {
		bytesTotal += entries[i].Size
	}
	clone := false
	if len(files) > 0 {
		first, _, _ := strings.Cut(src(entries[files[0]]), "\x00") // a pack: its file
		clone = sameDev(first, dst)
	}
	m := newMeter(progress, "restoring", bytesTotal, len(files))
	err = pool(len(files), workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := entries[files[k]]
		if reuse != nil {
			if old := reuse(e); old != "" && os.Link(old, at(e)) == nil {
				m.add(e.Size, 1)
				return nil
			}
		}
		if copyFile != nil {
			if err := copyThrough(ctx, copyFile, src(e), at(e)); err != nil {
				return noSpace(fmt.Errorf("copy %s: %w", e.Path, err))
			}
			if err := setMeta(at(e), e, true); err != nil {
				return err
			}
			m.add(e.Size, 1)
			return nil
		}
		// The mode is set through the descriptor; a mode of 0 (which
		// copyData takes as "leave it") is set by path below.
		// A file without xattrs gets its time through the descriptor too.
		var mtime *int64
		if len(e.Xattr) == 0 && filePerm(e) != 0 {
			mtime = &e.MTime
		}
		n, timed, err := copyData(src(e), at(e), clone, false, filePerm(e), mtime)
		if err != nil {
			return err
		}
		if !timed {
			if err := setMeta(at(e), e, filePerm(e) == 0); err != nil {
				return err
			}
		}
		m.add(n, 1)
		return nil
	})
	m.done()
	if err != nil {
		return fmt.Errorf("restore into %s: %w", dst, err)
	}
	for _, e := range entries {
		if e.Kind == KindSymlink {
			if err := os.Symlink(e.Link, at(e)); err != nil {
				return noSpace(fmt.Errorf("restore: symlink %s: %w", at(e), err))
			}
			if err := applyMeta(at(e), e); err != nil {
				return err
			}
		}
	}
	// Folders last and deepest first: filling a folder changes its time.
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Kind == KindDir {
			if err := applyMeta(at(e), e); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyThrough runs copyFile from src to dst. A packed source (see
// store.objPath) is first copied out of its pack into a temporary file in
// the store, which copyFile then reads.
func copyThrough(ctx context.Context, copyFile CopyFunc, src, dst string) error {
	if !strings.Contains(src, "\x00") {
		return copyFile(ctx, src, dst)
	}
	pack, _, _ := strings.Cut(src, "\x00")
	// The store's folder (pack is STORE/objects/SAVE/N): a save's cleanup
	// removes what a killed restore leaves there.
	f, err := os.CreateTemp(filepath.Dir(filepath.Dir(filepath.Dir(pack))), ".unpack.tmp-*")
	if err != nil {
		return noSpace(fmt.Errorf("unpack %s: %w", pack, err))
	}
	tmp := f.Name()
	f.Close()
	os.Remove(tmp)
	defer os.Remove(tmp)
	if _, _, err := copyData(src, tmp, false, false, 0, nil); err != nil {
		return err
	}
	return copyFile(ctx, tmp, dst)
}

// ErrNoSnapshot: nothing was saved yet, or no snapshot has that ID.
var ErrNoSnapshot = errors.New("no such snapshot")
