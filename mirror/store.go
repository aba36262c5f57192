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

// manifest is one save: the whole tree. On disk it is two gob values, the
// header then the entries, so listing and pruning read the header only.
type manifest struct {
	header
	Entries []Entry
}

type header struct {
	ID      string
	Created time.Time
	Files   int   // regular files
	Bytes   int64 // their total size
	// Refs lists, per save, the numbers of the objects this tree uses.
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

func (s *store) manifest(id string) (*manifest, error) { return s.readManifest(id, true) }

func (s *store) readManifest(id string, entries bool) (*manifest, error) {
	b, err := os.ReadFile(s.path("snapshots", id+".snap"))
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
func (s *store) ids() ([]string, error) {
	ents, err := os.ReadDir(s.path("snapshots"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if n := e.Name(); strings.HasSuffix(n, ".snap") && !strings.HasPrefix(n, ".") {
			ids = append(ids, strings.TrimSuffix(n, ".snap"))
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

// save makes root's tree the store's new current snapshot, copying only the
// files whose identity changed since the snapshot the index describes, and
// keeps the newest keepN snapshots.
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
	// prev is the snapshot the disk's files were last known to match; its
	// entries are reused for every path whose identity is unchanged.
	var prev *manifest
	if idx != nil {
		if prev, err = s.manifest(idx.Snapshot); err != nil {
			prev, idx = nil, nil
		}
	}
	entries := make([]Entry, len(items))
	var toCopy []int
	var copyBytes int64
	pi, xi := 0, 0 // merge positions in prev.Entries and idx.Paths (all in pathLess order)
	for i, it := range items {
		if idx != nil && prev != nil {
			for xi < len(idx.Paths) && pathLess(idx.Paths[xi], it.rel) {
				xi++
			}
			for pi < len(prev.Entries) && pathLess(prev.Entries[pi].Path, it.rel) {
				pi++
			}
			if xi < len(idx.Paths) && idx.Paths[xi] == it.rel && idx.Idents[xi] == it.id &&
				pi < len(prev.Entries) && prev.Entries[pi].Path == it.rel {
				entries[i] = prev.Entries[pi]
				continue
			}
		}
		e, err := entryOf(root, it)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return Result{}, fmt.Errorf("save %s: %s changed during the save, try again: %w", root, it.rel, err)
			}
			return Result{}, fmt.Errorf("save %s: %w", root, err)
		}
		entries[i] = e
		if e.Kind == KindFile {
			toCopy = append(toCopy, i)
			copyBytes += e.Size
		}
	}
	var res Result
	if prev != nil && prev.ID == curID {
		res.Removed = removed(prev.Entries, entries)
	} else if curID != "" {
		if cur, err := s.manifest(curID); err == nil {
			res.Removed = removed(cur.Entries, entries)
		}
	}
	prev = nil // let the old tree go before copying
	for _, e := range entries {
		if e.Kind == KindFile {
			res.Files++
			res.Bytes += e.Size
		}
	}

	id := newID(time.Now(), curID)
	objDir := s.path("objects", id)
	if err := os.MkdirAll(objDir, 0o700); err != nil {
		return Result{}, noSpace(fmt.Errorf("save %s: make %s: %w", root, objDir, err))
	}
	fail := func(err error) (Result, error) {
		os.RemoveAll(objDir)
		return Result{}, fmt.Errorf("save %s: %w", root, err)
	}
	clone := sameDev(root, objDir)
	m := newMeter(progress, "saving", copyBytes, len(toCopy))
	err = pool(len(toCopy), workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := &entries[toCopy[k]]
		e.Obj = id + "/" + strconv.Itoa(k)
		n, err := copyData(filepath.Join(root, filepath.FromSlash(e.Path)), s.path("objects", e.Obj), clone, syncEachFile, 0)
		if err != nil {
			return err
		}
		e.Size = n // the bytes kept; a file growing under us is seen again next save
		m.add(n, 1)
		return nil
	})
	m.done()
	if err != nil {
		return fail(err)
	}
	res.CopiedFiles = len(toCopy)
	for _, k := range toCopy {
		res.CopiedBytes += entries[k].Size
	}
	if err := os.MkdirAll(s.path("snapshots"), 0o700); err != nil {
		return fail(noSpace(err))
	}
	// Objects and manifest reach stable storage before current names them:
	// on Linux one syncfs covers both; elsewhere each file was fsynced as
	// written and the manifest is written with fsyncs.
	mf := &manifest{header: header{ID: id, Created: time.Now().UTC(), Files: res.Files, Bytes: res.Bytes}, Entries: entries}
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
// only.
func (s *store) prune(keepN int) error {
	if keepN < 1 {
		keepN = 1
	}
	ids, err := s.ids()
	if err != nil || len(ids) <= keepN {
		return err
	}
	drop, keep := ids[:len(ids)-keepN], ids[len(ids)-keepN:]
	used := map[string]map[uint32]bool{}
	for _, id := range keep {
		h, err := s.readManifest(id, false)
		if err != nil {
			return err
		}
		for save, nums := range h.Refs {
			if used[save] == nil {
				used[save] = map[uint32]bool{}
			}
			for _, n := range nums {
				used[save][n] = true
			}
		}
	}
	for _, id := range drop {
		if err := os.Remove(s.path("snapshots", id+".snap")); err != nil {
			return fmt.Errorf("remove snapshot %s: %w", id, err)
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
	if err := restoreTree(ctx, m.Entries, func(e Entry) string { return s.path("objects", e.Obj) }, dst, progress, s.copyFile); err != nil {
		return Result{}, err
	}
	if diskID != "" {
		items, err := scan(dst)
		if err != nil {
			return Result{}, err
		}
		_ = s.writeIndex(indexOf(id, diskID, items))
	}
	return Result{Snapshot: id, Files: m.Files, Bytes: m.Bytes, CopiedFiles: m.Files, CopiedBytes: m.Bytes, Took: time.Since(start)}, nil
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
	clone := len(files) > 0 && sameDev(src(entries[files[0]]), dst)
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
			if err := copyFile(ctx, src(e), at(e)); err != nil {
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
		n, err := copyData(src(e), at(e), clone, false, filePerm(e))
		if err != nil {
			return err
		}
		if err := setMeta(at(e), e, filePerm(e) == 0); err != nil {
			return err
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

// ErrNoSnapshot: nothing was saved yet, or no snapshot has that ID.
var ErrNoSnapshot = errors.New("no such snapshot")
