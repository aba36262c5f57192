package mirror

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"rambar/snapstore"
	"rambar/tree"
	"strings"

	"rambar/internal/atomicfile"
)

// record is an open sync record: its header, its base (read block by block
// as paths are asked for) and the paths changed since the base.
type record struct {
	syncHead
	base   *baseFile  // nil: none
	delta  []syncPath // in order; a path with neither side was removed
	legacy []syncPath // a version 1 record, whole (then no base or delta)
}

// openRecord reads the store's record; nil when there is none.
func openRecord(storeDir string) (*record, error) {
	dir := recordDir(storeDir)
	b, err := snapstore.ReadBounded(filepath.Join(dir, recordName), snapstore.MaxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return readLegacyRecord(storeDir)
	}
	if err != nil {
		return nil, fmt.Errorf("read mirror record: %w", err)
	}
	h, delta, err := decodeSync(b)
	if err != nil {
		return nil, fmt.Errorf("mirror record %s: %w", filepath.Join(dir, recordName), err)
	}
	r := &record{syncHead: h, delta: delta}
	if h.Base != "" {
		if r.base, err = openBase(filepath.Join(dir, h.Base)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *record) close() {
	if r != nil && r.base != nil {
		r.base.close()
	}
}

// get returns path p's entry; nil when the record has none.
func (r *record) get(p string) (*syncPath, error) {
	if i, ok := findPath(r.delta, p); ok {
		if sp := &r.delta[i]; sp.F != nil || sp.D != nil || sp.Pending {
			return sp, nil
		}
		return nil, nil
	}
	if i, ok := findPath(r.legacy, p); ok {
		return &r.legacy[i], nil
	}
	if r.base != nil {
		return r.base.find(p)
	}
	return nil, nil
}

// each calls fn with every path of the record, in order (valid only
// during the call).
func (r *record) each(fn func(*syncPath) error) error {
	return mergeEach(r.baseEach, r.delta, fn)
}

func (r *record) baseEach(fn func(*syncPath) error) error {
	if r.base != nil {
		return r.base.each(fn)
	}
	for i := range r.legacy {
		if err := fn(&r.legacy[i]); err != nil {
			return err
		}
	}
	return nil
}

// pending lists the paths whose deletion a write-back postponed.
func (r *record) pending() []string {
	var out []string
	for _, p := range r.delta {
		if p.Pending {
			out = append(out, p.Path)
		}
	}
	return out
}

// mergeEach calls fn with the paths of each (in order) merged with over
// (in order; a path there replaces each's, and one with neither side that
// is not pending is removed).
func mergeEach(each func(func(*syncPath) error) error, over []syncPath, fn func(*syncPath) error) error {
	j := 0
	emit := func(p *syncPath) error {
		if p.F == nil && p.D == nil && !p.Pending {
			return nil // removed
		}
		return fn(p)
	}
	err := each(func(p *syncPath) error {
		for j < len(over) && tree.PathLess(over[j].Path, p.Path) {
			if err := emit(&over[j]); err != nil {
				return err
			}
			j++
		}
		if j < len(over) && over[j].Path == p.Path {
			j++
			return emit(&over[j-1])
		}
		return emit(p)
	})
	for ; err == nil && j < len(over); j++ {
		err = emit(&over[j])
	}
	return err
}

// mergePaths is old (in order) with each path of changes (in order)
// added or replacing its entry.
func mergePaths(old, changes []syncPath) []syncPath {
	out := make([]syncPath, 0, len(old)+len(changes))
	j := 0
	for _, p := range old {
		for j < len(changes) && tree.PathLess(changes[j].Path, p.Path) {
			out = append(out, changes[j])
			j++
		}
		if j < len(changes) && changes[j].Path == p.Path {
			out = append(out, changes[j])
			j++
			continue
		}
		out = append(out, p)
	}
	return append(out, changes[j:]...)
}

// deltaLimit is how many changed paths the sync file holds before the
// record is compacted into a new base.
func deltaLimit(basePaths int) int { return 4096 + basePaths/8 }

// writeRecord replaces the store's record with a new base holding the
// paths fill gives (in order) and the sync file of h naming it, with the
// changed paths delta (pending deletions). The sync file is the commit
// point: until it is written, the old record stands.
func writeRecord(storeDir string, h syncHead, delta []syncPath, fill func(add func(*syncPath) error) error) error {
	dir := recordDir(storeDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tree.NoSpace(fmt.Errorf("make %s: %w", dir, err))
	}
	h.Base = "base-" + tree.RandomID()[:16]
	err := atomicfile.WriteFrom(filepath.Join(dir, h.Base), 0o600, true, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 256<<10)
		b, err := newBaseWriter(bw)
		if err != nil {
			return err
		}
		if err := fill(b.add); err != nil {
			return err
		}
		if err := b.finish(); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		os.Remove(filepath.Join(dir, h.Base))
		return tree.NoSpace(fmt.Errorf("write mirror record: %w", err))
	}
	return commitSync(storeDir, h, delta)
}

// commitSync writes the sync file (durably), then removes the base files
// it does not name and a version 1 record.
func commitSync(storeDir string, h syncHead, delta []syncPath) error {
	dir := recordDir(storeDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tree.NoSpace(fmt.Errorf("make %s: %w", dir, err))
	}
	if err := tree.NoSpace(atomicfile.WriteFile(filepath.Join(dir, recordName), encodeSync(h, delta), 0o600)); err != nil {
		return fmt.Errorf("write mirror record: %w", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "base-") && e.Name() != h.Base {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	removeLegacy(storeDir)
	return nil
}

// updateRecord writes the record of h: r's paths with changes (in order;
// a path with neither side is removed) over them. It writes only the sync
// file with the merged changes, unless they pass deltaLimit (or r has no
// base): then a new base, with the postponed deletions left in the delta.
func updateRecord(storeDir string, r *record, h syncHead, changes []syncPath) error {
	var delta []syncPath
	if r != nil {
		delta = r.delta
	}
	delta = mergePaths(delta, changes)
	if r != nil && r.base != nil && len(delta) <= deltaLimit(r.base.n) {
		h.Base = r.Base
		return commitSync(storeDir, h, delta)
	}
	var pending []syncPath
	for _, p := range delta {
		if p.Pending {
			pending = append(pending, p)
		}
	}
	each := func(func(*syncPath) error) error { return nil }
	if r != nil {
		each = r.baseEach
	}
	return writeRecord(storeDir, h, pending, func(add func(*syncPath) error) error {
		return mergeEach(each, delta, func(p *syncPath) error {
			if p.Pending {
				return nil
			}
			return add(p)
		})
	})
}
