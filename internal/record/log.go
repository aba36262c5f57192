package record

import "encoding/json"

// Log is a step journal: the record of one kind of multi-step operation
// (a reclaim, a disk in place, a cache switched on or off, a restore or
// load), one per disk or target, written before each step is taken. The
// next run reads it and finishes or undoes the step that was cut short;
// Pending lists every step still open for Leftovers and doctor.
type Log[R any] struct {
	Kind
	// Op names the operation, as Pending tells it ("reclaim", "in place").
	Op string
	// Key is the disk or target a record is of (its key in Kind).
	Key func(r *R) string
	// Step is the step a record says is under way.
	Step func(r *R) string
	// Heard, when set (tests), is told each step once it is written.
	Heard func(step string)
}

// Pending is a step a Log holds open.
type Pending struct {
	Op   string `json:"op"`
	Key  string `json:"key"`
	Step string `json:"step"`
	Path string `json:"path"`
}

// Note writes r, before the step it names is taken.
func (l Log[R]) Note(r R) error {
	if err := l.Kind.Write(l.Key(&r), r); err != nil {
		return err
	}
	if l.Heard != nil {
		l.Heard(l.Step(&r))
	}
	return nil
}

// Get reads the record of key; found is false when there is none, ok false
// when there is one that cannot be read.
func (l Log[R]) Get(key string) (r R, found, ok bool) {
	found, ok = l.Kind.Load(key, &r)
	return r, found, ok
}

// Done removes the record of key: its operation finished or was undone.
func (l Log[R]) Done(key string) { l.Kind.Remove(key) }

// All reads every readable record, with where it is.
func (l Log[R]) All() (rs []R, paths []string) {
	l.Kind.Each(func(p string, b []byte) {
		var r R
		if json.Unmarshal(b, &r) == nil && l.Key(&r) != "" {
			rs, paths = append(rs, r), append(paths, p)
		}
	})
	return rs, paths
}

// Pending lists the records whose step open says is not settled.
func (l Log[R]) Pending(open func(r *R) bool) []Pending {
	var out []Pending
	rs, paths := l.All()
	for i := range rs {
		if open == nil || open(&rs[i]) {
			out = append(out, Pending{Op: l.Op, Key: l.Key(&rs[i]), Step: l.Step(&rs[i]), Path: paths[i]})
		}
	}
	return out
}
