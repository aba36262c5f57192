package snapstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// Prune keeps the newest keepN snapshots (always the current one), the
// pinned ones (kept work set aside: the only copy of a state in no folder,
// State.SetAside) and the safety ones (pruned last: see keptSafety), and
// removes the objects only other snapshots used,
// reading manifest headers only. A dropped full manifest that a kept delta
// is based on is renamed ID.base instead: no longer listed or restorable
// by ID, but kept until no delta needs it.
func (s *Store) Prune(keepN int) error {
	keepN = max(keepN, 1)
	return s.prune(keepN, func(ids []string) map[string]bool {
		keep := map[string]bool{}
		for _, id := range ids[max(len(ids)-keepN, 0):] {
			keep[id] = true
		}
		return keep
	})
}

// PruneSpaced is Prune for a disk saved continuously (every few seconds):
// it keeps keepN save points spaced in time rather than the newest keepN
// (which would all be of the last minute). The newest is kept, and for
// each of the first keepN-1 spans of Spans the oldest snapshot within it
// (the one about to move on to the next), and in the last of them, open
// ended, the newest: so a disk saved every few seconds keeps, with 3, its
// last save, one of the last ten minutes and one 10 to 20 minutes old;
// with 4, its last, one of the last ten minutes, one of the last hour and
// one older; with 2, its last two.
func (s *Store) PruneSpaced(keepN int, now time.Time) error {
	return s.prune(max(keepN, 1), func(ids []string) map[string]bool { return spaced(ids, max(keepN, 1), now) })
}

// Spans are the ages PruneSpaced keeps a save point in, from the newest
// save on: up to 10 minutes old, then an hour, a day, a week, thirty days,
// a year.
var Spans = []time.Duration{10 * time.Minute, time.Hour, 24 * time.Hour, 7 * 24 * time.Hour, 30 * 24 * time.Hour, 365 * 24 * time.Hour}

// spaced picks the snapshots (ids, oldest first) PruneSpaced keeps.
func spaced(ids []string, keepN int, now time.Time) map[string]bool {
	keep := map[string]bool{}
	if len(ids) == 0 {
		return keep
	}
	keep[ids[len(ids)-1]] = true
	spans := Spans[:min(keepN-1, len(Spans))]
	lo := time.Duration(0)
	for n, hi := range spans {
		pick := ""
		for _, id := range ids[:len(ids)-1] {
			t, err := time.Parse(idLayout, id)
			if err != nil {
				continue
			}
			if age := now.Sub(t); age >= lo && (age < hi || n == len(spans)-1) {
				if pick == "" || n == len(spans)-1 {
					pick = id // the oldest in the span; the last span's newest
				}
			}
		}
		if pick != "" {
			keep[pick] = true
		}
		lo = hi
	}
	return keep
}

// prune keeps the snapshots pick picks of the ordinary ones (oldest
// first), the current one, the pinned ones and the safety ones keptSafety
// keeps (keepN: how many saves are kept), and removes the rest.
func (s *Store) prune(keepN int, pick func(ids []string) map[string]bool) error {
	ids, err := s.ids()
	if err != nil || len(ids) <= 1 {
		return err
	}
	kinds := s.safetyKinds()
	var ordinary []string
	for _, id := range ids {
		if _, ok := kinds[id]; !ok {
			ordinary = append(ordinary, id)
		}
	}
	picked := pick(ordinary)
	safe := keptSafety(ids, kinds, keepN)
	for id := range safe {
		picked[id] = true
	}
	if cur, err := s.Current(); err == nil && cur != "" {
		picked[cur] = true
	}
	if len(picked) >= len(ids) {
		return nil
	}
	hidden, err := s.idsOf(".base")
	if err != nil {
		return err
	}
	var drop, keep, kept []string
	for _, id := range ids {
		switch {
		case safe[id]:
			kept = append(kept, id) // not an ordinary save: no part of keepConsistent's choice
		case picked[id] || s.Pinned[id]:
			keep = append(keep, id)
		default:
			drop = append(drop, id)
		}
	}
	drop, keep = keepConsistent(drop, keep, s.labelled())
	keep = append(keep, kept...)
	used, bases, err := s.usedBy(keep)
	if err != nil {
		return err
	}
	if err := s.dropManifests(drop, hidden, bases); err != nil {
		return err
	}
	retained := map[string]bool{}
	for _, id := range keep {
		retained[id] = true
	}
	for b := range bases {
		retained[b] = true
	}
	return s.dropObjects(used, retained)
}

// keptSafety picks the safety snapshots prune keeps (kinds: the label of
// each; ids oldest first). The rule, pruned last: a safety snapshot is
// never counted among the keepN saves, so no save pushes one out; a
// SafetyUnwritten one (the only copy of paths its Mirror folder lacks)
// is kept until its label is cleared (a restore of it) or the name is
// forgotten; of the SafetyRestore ones the newest keepN are kept, so only
// newer forced restores ever remove one.
func keptSafety(ids []string, kinds map[string]SafetyKind, keepN int) map[string]bool {
	keep := map[string]bool{}
	n := 0
	for i := len(ids) - 1; i >= 0; i-- {
		switch kinds[ids[i]] {
		case SafetyUnwritten:
			keep[ids[i]] = true
		case SafetyRestore:
			if n < keepN {
				keep[ids[i]] = true
			}
			n++
		}
	}
	return keep
}

// labelled is the set of snapshots labelled taken while in use.
func (s *Store) labelled() map[string]bool {
	ids, _ := s.idsOf(InUseExt)
	out := map[string]bool{}
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// keepConsistent keeps, when every snapshot kept (keep) was taken while in
// use, the newest of drop that was not too: saves of a disk that never
// holds still do not push out its last consistent state.
func keepConsistent(drop, keep []string, inUse map[string]bool) ([]string, []string) {
	for _, id := range keep {
		if !inUse[id] {
			return drop, keep
		}
	}
	for i := len(drop) - 1; i >= 0; i-- {
		if !inUse[drop[i]] {
			return slices.Delete(slices.Clone(drop), i, i+1), append([]string{drop[i]}, keep...)
		}
	}
	return drop, keep
}

// usedBy reads the headers of the kept snapshots and of the bases of those
// that are deltas: the objects they use (per save, by number) and the bases.
func (s *Store) usedBy(keep []string) (used map[string]map[uint32]bool, bases map[string]bool, err error) {
	used, bases = map[string]map[uint32]bool{}, map[string]bool{}
	note := func(h *Manifest) {
		for save, nums := range h.Refs {
			if used[save] == nil {
				used[save] = map[uint32]bool{}
			}
			for _, n := range nums {
				used[save][n] = true
			}
		}
	}
	for _, id := range keep {
		h, err := s.ReadManifest(id, false)
		if err != nil {
			return nil, nil, err
		}
		note(h)
		if h.Base != "" {
			bases[h.Base] = true
		}
	}
	for b := range bases {
		h, err := s.ReadFile(b, true, false)
		if err != nil {
			return nil, nil, err
		}
		note(h)
	}
	return used, bases, nil
}

// dropManifests removes the dropped snapshots' manifests (hiding those that
// are bases of kept deltas) and the hidden bases no kept delta needs.
func (s *Store) dropManifests(drop, hidden []string, bases map[string]bool) error {
	remove := func(id, ext string) error {
		if err := os.Remove(s.Path("snapshots", id+ext)); err != nil {
			return fmt.Errorf("remove snapshot %s: %w", id, err)
		}
		return nil
	}
	for _, id := range drop {
		os.Remove(s.Path("snapshots", id+InUseExt)) // no longer listed
		os.Remove(s.Path("snapshots", id+SafetyExt))
		if bases[id] {
			if err := os.Rename(s.Path("snapshots", id+".snap"), s.Path("snapshots", id+".base")); err != nil {
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
	return nil
}

// dropObjects removes the objects no retained snapshot uses: a retained
// snapshot's own folder holds only objects it uses; every other folder
// keeps just the objects a retained snapshot names (a save's objects
// outlive it while later trees share them). Folders of saves later than
// the current one are left to cleanup.
func (s *Store) dropObjects(used map[string]map[uint32]bool, retained map[string]bool) error {
	cur, err := s.Current()
	if err != nil {
		return err
	}
	dirs, _ := os.ReadDir(s.Path("objects"))
	for _, d := range dirs {
		id := d.Name()
		if retained[id] || id > cur {
			continue
		}
		dir := s.Path("objects", id)
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
