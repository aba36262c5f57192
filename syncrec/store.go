package syncrec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rambar/snapstore"
	"rambar/tree"

	"rambar/internal/atomicfile"
	"rambar/internal/record"
)

// Record is an open sync record: its header, its base (read block by block
// as paths are asked for) and the paths changed since the base.
type Record struct {
	Head
	base   *baseFile // nil: none
	Delta  []Path    // in order; a path with neither side was removed
	legacy []Path    // a version 1 record, whole (then no base or delta)
}

// Open reads the store's record; nil when there is none.
func Open(storeDir string) (*Record, error) {
	dir := Dir(storeDir)
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
	r := &Record{Head: h, Delta: delta}
	if h.Base != "" {
		if r.base, err = openBase(filepath.Join(dir, h.Base)); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Close lets go of the record's base file (nil: nothing).
func (r *Record) Close() {
	if r != nil && r.base != nil {
		r.base.close()
	}
}

// Get returns path p's entry; nil when the record has none.
func (r *Record) Get(p string) (*Path, error) {
	if i, ok := findPath(r.Delta, p); ok {
		if sp := &r.Delta[i]; sp.F != nil || sp.D != nil || sp.Pending {
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

// Each calls fn with every path of the record, in order (valid only
// during the call); a nil record has none.
func (r *Record) Each(fn func(*Path) error) error {
	if r == nil {
		return nil
	}
	return mergeEach(r.baseEach, r.Delta, fn)
}

func (r *Record) baseEach(fn func(*Path) error) error {
	if r.base != nil {
		return r.base.each(fn)
	}
	return EachOf(r.legacy)(fn)
}

// EachOf walks ps as a record's paths are walked (Each).
func EachOf(ps []Path) func(func(*Path) error) error {
	return func(fn func(*Path) error) error {
		for i := range ps {
			if err := fn(&ps[i]); err != nil {
				return err
			}
		}
		return nil
	}
}

// mergeEach calls fn with the paths of each (in order) merged with over
// (in order; a path there replaces each's, and one with neither side that
// is not pending is removed).
func mergeEach(each func(func(*Path) error) error, over []Path, fn func(*Path) error) error {
	return JoinEach(each, over, func(o *Path) string { return o.Path }, func(o, p *Path) error {
		if o != nil {
			p = o
		}
		if p.F == nil && p.D == nil && !p.Pending {
			return nil // removed
		}
		return fn(p)
	})
}

// JoinEach calls fn, in path order, once per path of each (p) or of ps
// (o; in order): a path both hold is one call with both, and the side
// that lacks a path gives nil.
func JoinEach[T any](each func(func(*Path) error) error, ps []T, path func(*T) string, fn func(o *T, p *Path) error) error {
	j := 0
	err := each(func(p *Path) error {
		for ; j < len(ps) && tree.PathLess(path(&ps[j]), p.Path); j++ {
			if err := fn(&ps[j], nil); err != nil {
				return err
			}
		}
		if j < len(ps) && path(&ps[j]) == p.Path {
			j++
			return fn(&ps[j-1], p)
		}
		return fn(nil, p)
	})
	for ; err == nil && j < len(ps); j++ {
		err = fn(&ps[j], nil)
	}
	return err
}

// mergePaths is old (in order) with each path of changes (in order)
// added or replacing its entry.
func mergePaths(old, changes []Path) []Path {
	out := make([]Path, 0, len(old)+len(changes))
	JoinEach(EachOf(old), changes, func(c *Path) string { return c.Path }, func(c, p *Path) error {
		if c == nil {
			c = p
		}
		out = append(out, *c)
		return nil
	})
	return out
}

// deltaLimit is how many changed paths the sync file holds before the
// record is compacted into a new base.
func deltaLimit(basePaths int) int { return 4096 + basePaths/8 }

// Write replaces the store's record with a new base holding the
// paths fill gives (in order) and the sync file of h naming it, with the
// changed paths delta (pending deletions). The sync file is the commit
// point: until it is written, the old record stands.
func Write(storeDir string, h Head, delta []Path, fill func(add func(*Path) error) error) error {
	dir := Dir(storeDir)
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
	return Commit(storeDir, h, delta)
}

// Commit writes the sync file (durably), then removes the base files
// it does not name, those a killed writer left half written, and a
// version 1 record.
func Commit(storeDir string, h Head, delta []Path) error {
	dir := Dir(storeDir)
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
		record.RemoveDeadTemp(dir, e) // a base a killed save was writing (as large as the record)
	}
	removeLegacy(storeDir)
	return nil
}

// Update writes the record of h: r's paths with changes (in order;
// a path with neither side is removed) over them. It writes only the sync
// file with the merged changes, unless they pass deltaLimit (or r has no
// base): then a new base, with the postponed deletions left in the delta.
func Update(storeDir string, r *Record, h Head, changes []Path) error {
	var delta []Path
	if r != nil {
		delta = r.Delta
	}
	delta = mergePaths(delta, changes)
	if r != nil && r.base != nil && len(delta) <= deltaLimit(r.base.n) {
		h.Base = r.Base
		return Commit(storeDir, h, delta)
	}
	pending := slices.DeleteFunc(slices.Clone(delta), func(p Path) bool { return !p.Pending })
	each := func(func(*Path) error) error { return nil }
	if r != nil {
		each = r.baseEach
	}
	return Write(storeDir, h, pending, func(add func(*Path) error) error {
		return mergeEach(each, delta, func(p *Path) error {
			if p.Pending {
				return nil
			}
			return add(p)
		})
	})
}
