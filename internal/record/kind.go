package record

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rambar/internal/atomicfile"
)

// Kind is one kind of record kept per disk (or per id of RAMBar's making)
// in a folder of the data folder: DIR/KEY.json.
type Kind struct {
	// Dir is the folder; "" (no data folder) keeps nothing.
	Dir string
	// Names is the rule the keys follow.
	Names Names
	// ByID: the key is an id of RAMBar's own making, used as it is.
	ByID bool
	// Legacy, when set, is one more key an older RAMBar kept the record
	// under; it is still read, and removed once the record is written again.
	Legacy func(name string) string
	// Limit bounds a record's size; 0 is MaxSize.
	Limit int64
	// Fast writes without waiting for stable storage: a record a power
	// cut makes stale anyway (one of a mounted RAM disk).
	Fast bool
}

func (k Kind) limit() int64 {
	if k.Limit > 0 {
		return k.Limit
	}
	return MaxSize
}

// Path is where the record of name is written.
func (k Kind) Path(name string) string {
	if k.ByID {
		return filepath.Join(k.Dir, name+".json")
	}
	return filepath.Join(k.Dir, k.Names.Key(name)+".json")
}

// paths are where the record of name may be: Path first.
func (k Kind) paths(name string) []string {
	if k.ByID {
		return []string{k.Path(name)}
	}
	var out []string
	for _, key := range k.Names.Keys(name) {
		out = append(out, filepath.Join(k.Dir, key+".json"))
	}
	if k.Legacy != nil {
		if p := filepath.Join(k.Dir, k.Legacy(name)+".json"); !slices.Contains(out, p) && filepath.Dir(p) == k.Dir {
			out = append(out, p)
		}
	}
	return out
}

// nameIn is the "name" a record holds, and whether it is JSON at all.
func nameIn(b []byte) (name string, valid bool) {
	var r struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(b, &r) != nil {
		return "", false
	}
	return r.Name, true
}

// other reports whether b is a readable record of another disk than name.
func (k Kind) other(b []byte, name string) bool {
	n, valid := nameIn(b)
	return valid && n != "" && !k.Names.Same(n, name)
}

// Read reads the record of name: under its key, else under an older key.
// A record naming another disk is not this one's. One that cannot be read
// (damaged, too large) counts, with b nil: a damaged record errs on the
// side of keeping data. found is false when there is none.
func (k Kind) Read(name string) (b []byte, found bool) {
	if k.Dir == "" {
		return nil, false
	}
	for _, p := range k.paths(name) {
		b, err := ReadFile(p, k.limit())
		switch {
		case os.IsNotExist(err):
			continue
		case err != nil:
			return nil, true
		case !k.ByID && k.other(b, name):
			continue
		}
		return b, true
	}
	return nil, false
}

// Load reads the record of name into v; found is false when there is none,
// ok false when there is one that cannot be read.
func (k Kind) Load(name string, v any) (found, ok bool) {
	b, found := k.Read(name)
	if !found {
		return false, false
	}
	return true, b != nil && json.Unmarshal(b, v) == nil
}

// Write writes the record of name (durably unless Fast), then removes a
// copy an older RAMBar kept under another key.
func (k Kind) Write(name string, v any) error {
	if k.Dir == "" {
		return nil
	}
	if err := writeJSON(k.Path(name), v, !k.Fast); err != nil {
		return err
	}
	k.removeOlder(name)
	return nil
}

// Remove removes the record of name, wherever it is kept, never another
// disk's.
func (k Kind) Remove(name string) {
	if k.Dir == "" {
		return
	}
	if b, err := ReadFile(k.Path(name), k.limit()); err != nil || k.ByID || !k.other(b, name) {
		os.Remove(k.Path(name))
	}
	k.removeOlder(name)
}

// removeOlder removes the copies of name's record under older keys that
// are surely this disk's.
func (k Kind) removeOlder(name string) {
	for _, p := range k.paths(name)[1:] {
		if b, err := ReadFile(p, k.limit()); err == nil {
			if n, valid := nameIn(b); valid && (n == "" || k.Names.Same(n, name)) {
				os.Remove(p)
			}
		}
	}
}

// Each calls fn with every record in the folder (regular *.json files,
// bounded; those that cannot be read are left out), in name order. A
// temporary file whose writer is gone (killed between its write and its
// rename) is removed on the way: the record it was to replace, if any, is
// whole.
func (k Kind) Each(fn func(path string, b []byte)) {
	if k.Dir == "" {
		return
	}
	ents, err := os.ReadDir(k.Dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		RemoveDeadTemp(k.Dir, e)
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := filepath.Join(k.Dir, e.Name())
		if b, err := ReadFile(p, k.limit()); err == nil {
			fn(p, b)
		}
	}
}

// RemoveDeadTemp removes e, in dir, when it is a temporary file of
// atomicfile's whose writer is gone (killed between its write and its
// rename: the file it was to replace, if any, is whole), and reports
// whether it did. A write under way, by any live process, is left.
func RemoveDeadTemp(dir string, e fs.DirEntry) bool {
	pid, temp := atomicfile.TempWriter(e.Name())
	return temp && e.Type().IsRegular() && !Alive(pid) && os.Remove(filepath.Join(dir, e.Name())) == nil
}
