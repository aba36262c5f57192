package foldersync

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The applier makes a Mirror sync's decisions on its target, path by path,
// both ways: a write-back's plan (plan.go) in the folder, with the disk's
// versions from the store; a refresh's decisions (refresh.go) on the disk,
// with the folder's versions. A direction decides and says what becomes of
// a path it gave up or found changed (the write-back keeps conflict copies;
// the refresh leaves the path to the save after it); the applier owns the
// rest, in phases:
//
//  1. the temporary names are listed in the store (temps.go);
//  2. each new version is made under its temporary name in its own folder
//     of the target, through that folder's descriptor, never following a
//     symlink (make.go): a file filled and checked (or made a hard link of
//     a name holding its bytes), a symlink, a FIFO, each with owner,
//     xattrs, mode, flags and times; a folder the target lacks is made
//     under a temporary name with what it holds under their own names,
//     its metadata set deepest first;
//  3. on a kept target (the folder), one flush, so no rename names a file
//     whose bytes are not on stable storage;
//  4. in path order, each is renamed over its path once a last look finds
//     its temporary name still holding what was made there and the path
//     still holding what the decision saw (RENAME_NOREPLACE where it saw
//     nothing; a file by an exchange checked after, so another user who
//     swaps the temporary name never gets a file of theirs under the
//     name); metadata alone is set in place;
//  5. deletions, deepest first, after a second look at the source and at
//     the target; a folder is removed only once empty, and a new version
//     replaces a folder the deletions emptied by an exchange;
//  6. the folders' metadata, deepest first, and the times of the folders
//     written in;
//  7. what is left under a temporary name removed; a second flush.

// op is what an apply does at one path of its target.
type op uint8

const (
	opNone    op = iota // nothing: the target keeps its entry
	opMeta              // the new metadata, set in place on the target's entry
	opPut               // the new version under a temporary name, renamed over the path (or to it)
	opOverDir           // opPut where the target has a folder, once the deletions emptied it
	opCopy              // the new version under a temporary name, put beside the path (a conflict copy)
	opRemove            // the target's entry goes, after a second look, deepest first
)

// Item is one path an apply looks at: what a direction decided for it,
// and what became of it.
type Item struct {
	Path string
	Tmp  string // its temporary name in its own folder of the target ("": none)

	op   op
	kind tree.Kind    // the new version's kind (opMeta: the entry's)
	was  *unix.Stat_t // the target's entry the decision saw; nil: none
	ino  uint64       // the inode made under Tmp
	now  *unix.Stat_t // the target's entry after its metadata was set in place
	// fresh: inside a folder the apply makes, made under its own name;
	// failed: given up (the direction said why); changed: its metadata
	// set in place changed something.
	fresh, failed, changed bool

	pl *planItem // the write-back's plan of it
	rf *ritem    // the refresh's decision
}

// direction is what differs between a write-back and a refresh.
type direction interface {
	// parent opens folder dir of the target for a new entry.
	parent(dir string) (int, error)
	// version is it's new version, made in the target's folder pfd; nil:
	// given up (the direction said why).
	version(it *Item, pfd int) (*version, error)
	// meta is the metadata to set in place on it's entry (open as fd, -1
	// for a symlink) or on the folder it makes (made).
	meta(it *Item, fd int, made bool) meta
	// gone: a second look finds it's path still absent from the source.
	gone(it *Item) bool
	// before runs right before it's last look and rename.
	before(it *Item, pfd int, name string) error
	// done: its new version or metadata is in place, or it is removed.
	done(it *Item)
	// raced: the target's entry changed since the decision; held: the
	// folder to be removed or replaced holds something.
	raced(it *Item, held bool)
	// fail: given up, err says why.
	fail(it *Item, err error)
	// keep handles what the applier leaves to the direction (opNone, opCopy).
	keep(it *Item)
	// note says what could not be kept at path.
	note(path, why string)
	// dirTimes are the times a folder of the target the apply wrote in
	// gets at the end (before: its own then); ok false: none.
	dirTimes(rel string, fd int, before [2]unix.Timespec) (ts [2]unix.Timespec, ok bool)
}

// applier applies items (in path order) to its target.
type applier struct {
	d       direction
	tgt     dirs
	items   []*Item
	store   string   // the store's folder, where the temporary names are listed
	temps   tempList // which list
	extra   []TempAt // temporary names the direction uses too (a copy hook's)
	durable bool     // a kept target (the folder): flushed before the first rename and at the end
	ready   func()   // once all is decided, before anything is made (tests)
	placing func()   // before the first rename (tests)

	listed   []TempAt
	touched  map[string][2]unix.Timespec // folders written in: their times before
	timed    map[string]bool             // folders whose metadata and times were set
	unplaced map[string]bool             // folders made that are not at their names
	made     []string                    // folders made in place (removed if the apply stops)
	metaSet  map[uint64]unix.Stat_t      // files of several names whose metadata was set in place, as left
	files    int                         // files made (not linked)
	flushes  int
}

// errTaken: another process replaced a temporary name.
var errTaken = errors.New("its temporary name was replaced by another process")

// run applies the items, in the phases above.
func (a *applier) run(ctx context.Context) error {
	a.touched, a.timed, a.unplaced, a.metaSet = map[string][2]unix.Timespec{}, map[string]bool{}, map[string]bool{}, map[uint64]unix.Stat_t{}
	a.assign()
	if a.ready != nil {
		a.ready()
	}
	if len(a.listed) > 0 {
		if err := a.temps.write(a.store, a.listed); err != nil {
			return err
		}
	}
	for _, it := range a.items {
		if err := ctx.Err(); err != nil {
			a.undo()
			return err
		}
		a.tgt.trim(maxOpenDirs)
		if err := a.prepare(it); err != nil {
			if !givenUp(err) {
				a.undo()
				return fmt.Errorf("%s: %w (nothing was changed)", it.Path, tree.NoSpace(err))
			}
			a.fail(it, err)
		}
	}
	a.dirMetas(true)
	if a.durable && len(a.listed)+len(a.made) > 0 {
		if err := a.flush(); err != nil {
			a.undo()
			return err
		}
	}
	if a.placing != nil {
		a.placing()
	}
	for _, it := range a.items {
		a.tgt.trim(maxOpenDirs)
		if err := a.put(it); err != nil {
			return fmt.Errorf("%s: %w", it.Path, tree.NoSpace(err))
		}
	}
	a.deletions()
	for _, it := range a.items {
		if it.op == opOverDir && !it.failed {
			a.tgt.trim(maxOpenDirs)
			a.overDir(it)
		}
	}
	a.dirMetas(false)
	a.untouch()
	for _, p := range cleanTemps(a.tgt.root, a.listed) {
		a.d.note(p, "a temporary name could not be removed")
	}
	if a.durable {
		return a.flush()
	}
	return nil
}

// assign gives each new version made whole a temporary name (not those
// made inside a folder the apply makes: fresh), listed with its folder.
func (a *applier) assign() {
	a.listed = append([]TempAt(nil), a.extra...)
	making := map[string]bool{}
	for _, it := range a.items {
		if it.op != opPut && it.op != opOverDir && it.op != opCopy {
			continue
		}
		dir, _ := tree.SplitRel(it.Path)
		if it.fresh = it.op == opPut && making[dir]; !it.fresh {
			it.Tmp = tempName()
			a.listed = append(a.listed, TempAt{Dir: dir, Name: it.Tmp})
		}
		if it.op == opPut && it.kind == tree.KindDir {
			making[it.Path] = true
		}
	}
}

// givenUp: an error of one path rather than of the whole apply:
// permissions, flags, a symlink, file or mount put in the way of its
// folder (never followed or crossed), a folder gone meanwhile (ENOENT: a
// git clean), its source changed meanwhile, a kind the system cannot make.
func givenUp(err error) bool {
	return slices.ContainsFunc([]error{unix.EPERM, unix.EACCES, unix.ELOOP, unix.ENOTDIR, unix.EXDEV, unix.ENOENT,
		errSourceMoved, errors.ErrUnsupported, tree.ErrReplaced}, func(e error) bool { return errors.Is(err, e) })
}

// fail gives it up: the target keeps its entry.
func (a *applier) fail(it *Item, err error) {
	if it.op == opPut && it.kind == tree.KindDir {
		a.unplaced[it.Path] = true // what it holds is given up with it
	}
	it.failed = true
	a.d.fail(it, err)
}

// raced: it's target entry changed since the decision (held: a folder
// holds something).
func (a *applier) raced(it *Item, held bool) {
	if it.op == opPut && it.kind == tree.KindDir {
		a.unplaced[it.Path] = true
	}
	a.d.raced(it, held)
}

// inUnplaced reports (and marks it failed, quietly) whether it lies
// inside a folder the apply made that is not at its name.
func (a *applier) inUnplaced(it *Item) bool {
	for p := it.Path; p != "."; {
		p, _ = tree.SplitRel(p)
		if a.unplaced[p] {
			it.failed = true
			return true
		}
	}
	return false
}

// undo removes what an apply that stops before its first rename made.
func (a *applier) undo() {
	cleanTemps(a.tgt.root, a.listed)
	for i := len(a.made) - 1; i >= 0; i-- {
		dir, name := tree.SplitRel(a.made[i])
		if pfd, err := a.tgt.at(dir); err == nil {
			unix.Unlinkat(pfd, name, unix.AT_REMOVEDIR)
		}
	}
	a.temps.remove(a.store)
}

func (a *applier) flush() error {
	if err := tree.CommitFlush(a.tgt.root); err != nil {
		return tree.NoSpace(fmt.Errorf("flush: %w", err))
	}
	a.flushes++
	return nil
}

// prepare makes it's new version under its temporary name (inside a
// folder made here, under its own).
func (a *applier) prepare(it *Item) error {
	if it.op != opPut && it.op != opOverDir && it.op != opCopy || it.failed || a.inUnplaced(it) {
		return nil
	}
	dir, name := tree.SplitRel(it.Path)
	target, pfd, err := it.Tmp, -1, error(nil)
	if it.fresh {
		target = name
		pfd, err = a.tgt.at(dir)
	} else if pfd, err = a.d.parent(dir); err == nil {
		a.touch(dir, pfd)
	}
	if err != nil {
		return err
	}
	v, err := a.d.version(it, pfd)
	if err != nil || v == nil {
		return err
	}
	if v.release != nil {
		defer v.release()
	}
	if a.link(it, pfd, target, v.links) {
		return nil
	}
	it.ino, err = makeAt(pfd, target, v, a.durable, func(why string) { a.d.note(it.Path, why) })
	var st unix.Stat_t
	switch {
	case err != nil && it.fresh && it.ino != 0 && unix.Fstatat(pfd, target, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && uint64(st.Ino) == it.ino:
		tree.RemoveAt(pfd, target) // never to appear with its folder
	case err != nil:
	case v.kind == tree.KindDir:
		a.tgt.moved(it.Path, dir, target)
	case v.kind == tree.KindFile:
		a.files++
	}
	return err
}

// linkFrom is a name of the target (in folder dir) a new file can be
// made a hard link of, while still (looked at) says it holds the bytes.
type linkFrom struct {
	dir, name string
	still     func(st *unix.Stat_t) bool
}

// link makes target in pfd a hard link of the first of from that still
// holds the bytes wanted; false when none can be linked.
func (a *applier) link(it *Item, pfd int, target string, from []linkFrom) bool {
	for _, f := range from {
		qfd, err := a.tgt.at(f.dir)
		var st, made unix.Stat_t
		if err != nil || unix.Fstatat(qfd, f.name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || !f.still(&st) {
			continue // changed meanwhile
		}
		if unix.Linkat(qfd, f.name, pfd, target, 0) != nil { // another user's file under protected_hardlinks
			continue
		}
		if unix.Fstatat(pfd, target, &made, unix.AT_SYMLINK_NOFOLLOW) != nil || made.Ino != st.Ino {
			unix.Unlinkat(pfd, target, 0)
			continue
		}
		it.ino = uint64(made.Ino)
		return true
	}
	return false
}

// put puts it's new version into place, or its metadata.
func (a *applier) put(it *Item) error {
	if it.failed || a.inUnplaced(it) {
		return nil
	}
	switch it.op {
	case opNone, opCopy:
		a.d.keep(it)
	case opMeta:
		if it.kind != tree.KindDir {
			a.inPlace(it)
		}
	case opPut:
		return a.place(it)
	}
	return nil
}
