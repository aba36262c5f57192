//go:build linux

package foldersync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"rambar/internal/testtree"
	"rambar/snapshot"
	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// The applier on its own, without the Keeper: a folder loaded onto a
// "disk" (a tmpfs), saved by package snapshot, written back and refreshed
// as Keeper.Save and Keeper.Refresh do it (pair below).

// pair is a Mirror folder and its disk, loaded.
type pair struct {
	t            *testing.T
	folder, disk string
	store        string
	s            *snapshot.Store
	ctx          context.Context
}

const syncDisk = "0123456789abcdef0123456789abcdef"

func newSync(t *testing.T, fill func(folder string)) *pair {
	t.Helper()
	base := tmpfs(t)
	f := &pair{t: t, folder: filepath.Join(base, "folder"), disk: tmpfs(t), store: filepath.Join(base, "store"), ctx: context.Background()}
	os.MkdirAll(f.folder, 0o755)
	fill(f.folder)
	f.s = &snapshot.Store{Store: &snapstore.Store{Dir: f.store}, Caches: true, NoSameBytes: true}
	l := &FolderLoad{Folder: f.folder, Disk: f.disk, Store: f.store}
	if err := l.Run(f.ctx, nil); err != nil {
		t.Fatal(err)
	}
	res, err := f.s.Save(f.ctx, f.disk, syncDisk, 20, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.s.Manifest(res.Snapshot)
	if err != nil {
		t.Fatal(err)
	}
	if err := syncrec.Write(f.store, f.head(res.Snapshot), nil, l.Record(m.Entries)); err != nil {
		t.Fatal(err)
	}
	f.same("the load")
	return f
}

func (f *pair) head(id string) syncrec.Head {
	return syncrec.Head{DiskID: syncDisk, Folder: f.folder, Snapshot: id, Complete: true}
}

func (f *pair) record() *syncrec.Record {
	f.t.Helper()
	rec, err := syncrec.Open(f.store)
	if err != nil {
		f.t.Fatal(err)
	}
	return rec
}

// save saves the disk and writes it back into the folder (Keeper.Save).
func (f *pair) save() WriteBack {
	f.t.Helper()
	return f.saveFrom(nil)
}

// saveFrom is save after a refresh, whose write-back starts from bases.
func (f *pair) saveFrom(bases map[string]syncrec.Path) WriteBack {
	f.t.Helper()
	CleanDiskTemps(f.store, f.disk)
	rec := f.record()
	defer rec.Close()
	res, err := f.s.Save(f.ctx, f.disk, syncDisk, 20, nil, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	w := &PathWrite{Folder: f.folder, Disk: f.disk, S: f.s.Store, Id: res.Snapshot, Rec: rec, Bases: bases, At: time.Now()}
	wb, err := w.Run(f.ctx)
	if err != nil {
		f.t.Fatalf("write-back: %v", err)
	}
	if err := syncrec.Update(f.store, rec, f.head(res.Snapshot), w.Changes); err != nil {
		f.t.Fatal(err)
	}
	RemoveJournal(f.store)
	return wb
}

// refresh saves, takes the folder's changes onto the disk, saves again and
// settles the record (Keeper.Refresh).
func (f *pair) refresh(r *Refresh) Applied {
	f.t.Helper()
	f.save()
	if left := CleanDiskTemps(f.store, f.disk); len(left) > 0 {
		f.t.Fatalf("left on the disk: %v", left)
	}
	rec := f.record()
	r.Folder, r.Disk, r.S, r.Rec = f.folder, f.disk, f.s.Store, rec
	err := r.Run(f.ctx)
	rec.Close()
	if err != nil {
		f.t.Fatalf("refresh: %v", err)
	}
	if r.Taken+r.Removed > 0 || len(r.Left) > 0 {
		f.saveFrom(r.Bases())
	}
	rec = f.record()
	defer rec.Close()
	if err := r.Settle(f.store, rec); err != nil {
		f.t.Fatal(err)
	}
	return r.Applied
}

func digestOf(t *testing.T, root string) tree.Digest {
	t.Helper()
	d, err := tree.DigestOf(root, true)
	if err != nil {
		t.Fatal(err)
	}
	// Folders' times move with what they hold; their own xattrs set in
	// the folder are no change a refresh sees (a folder's identity there
	// is its mode), so neither is compared.
	for p, l := range d {
		if strings.HasPrefix(l, "d ") {
			f := strings.Fields(l)
			d[p] = strings.Join(f[:2], " ")
		}
	}
	return d
}

// same: the folder and the disk hold the same tree, and no temporary name.
func (f *pair) same(when string) {
	f.t.Helper()
	a, b := digestOf(f.t, f.folder), digestOf(f.t, f.disk)
	if diff := a.Diff(b, 10); len(diff) > 0 {
		f.t.Fatalf("%s: the folder and the disk differ at %v:\n%v\n%v", when, diff, a[diff[0]], b[diff[0]])
	}
	for p := range a {
		if isTempName(filepath.Base(p)) {
			f.t.Fatalf("%s: a temporary name is left: %s", when, p)
		}
	}
}

func write(t *testing.T, root, rel, data string) { testtree.Write(t, root, rel, data) }

// everyKind changes root the way a user's tools do, once of each kind
// the applier makes: an edit, an addition deep down, a deletion, a folder
// renamed, a hard link, a symlink, a FIFO, a chmod, an xattr, a touch, a
// sparse file, a file become a folder and a folder become a file.
func everyKind(t *testing.T, root, tag string) {
	t.Helper()
	abs := func(p string) string { return filepath.Join(root, p) }
	write(t, root, "edit.txt", "edited "+tag)
	write(t, root, "new/"+tag+"/deep.txt", "added "+tag)
	os.Remove(abs("gone.txt"))
	os.Rename(abs("dir"), abs("dir-"+tag))
	os.Link(abs("edit.txt"), abs("hard-"+tag))
	os.Symlink("edit.txt", abs("sym-"+tag))
	unix.Mkfifo(abs("fifo-"+tag), 0o640)
	os.Chmod(abs("mode.sh"), 0o700)
	unix.Setxattr(abs("x.txt"), "user.tag", []byte(tag), 0)
	old := time.Unix(1_000_000_000, 0)
	os.Chtimes(abs("touch.txt"), old, old)
	sparse, _ := os.Create(abs("sparse-" + tag))
	sparse.WriteAt([]byte("end"), 8<<20)
	sparse.Close()
	os.Remove(abs("tofolder"))
	write(t, root, "tofolder/now", "a folder now")
	os.RemoveAll(abs("tofile"))
	write(t, root, "tofile", "a file now")
}

func everyKindTree(t *testing.T) func(string) {
	return func(folder string) {
		for _, p := range []string{"edit.txt", "gone.txt", "dir/a", "dir/sub/b", "mode.sh", "x.txt", "touch.txt", "tofolder", "tofile/inner"} {
			write(t, folder, p, p)
		}
	}
}

// Every kind of change goes across, both ways: made on the disk, by the
// write-back into the folder; made in the folder, by a refresh onto the
// disk. Then random changes, in rounds, both ways.
func TestApplyEveryChangeBothWays(t *testing.T) {
	f := newSync(t, everyKindTree(t))
	everyKind(t, f.disk, "disk")
	if wb := f.save(); len(wb.Conflicts)+len(wb.NotKept) > 0 {
		t.Errorf("the write-back: %+v", wb)
	}
	f.same("the write-back")
	if inodeOf2(t, f.folder, "hard-disk") != inodeOf2(t, f.folder, "edit.txt") {
		t.Error("the disk's hard link is no link in the folder")
	}
	os.RemoveAll(filepath.Join(f.folder, "tofolder"))
	write(t, f.folder, "tofolder", "back to a file")
	os.RemoveAll(filepath.Join(f.folder, "tofile"))
	write(t, f.folder, "tofile/inner", "back to a folder")
	os.RemoveAll(filepath.Join(f.folder, "dir-disk"))
	everyKind(t, f.folder, "folder")
	r := f.refresh(&Refresh{})
	if len(r.Left)+len(r.NotKept) > 0 || r.Taken == 0 || r.Removed == 0 {
		t.Errorf("the refresh: %+v", r)
	}
	f.same("the refresh")
	if inodeOf2(t, f.disk, "hard-folder") != inodeOf2(t, f.disk, "edit.txt") {
		t.Error("the folder's hard link is no link on the disk")
	}
	for round := 0; round < 6; round++ {
		side := []string{f.disk, f.folder}[round%2]
		c := testtree.NewChanger(side, testtree.Seed()+int64(round))
		var did []string
		for i := 0; i < 40; i++ {
			did = append(did, c.Change())
		}
		// A socket stays on its side (only its process could make it), and
		// so does the folder holding it: none is left for the comparison.
		filepath.WalkDir(side, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSocket != 0 {
				os.Remove(p)
			}
			return nil
		})
		if side == f.disk {
			f.save()
		} else {
			f.refresh(&Refresh{})
		}
		if t.Failed() {
			t.Logf("round %d: %v", round, did)
		}
		f.same(fmt.Sprintf("round %d (%v)", round, did))
	}
}

func inodeOf2(t *testing.T, root, rel string) uint64 {
	var st unix.Stat_t
	if err := unix.Lstat(filepath.Join(root, rel), &st); err != nil {
		t.Fatal(err)
	}
	return uint64(st.Ino)
}

// Another user who can write a folder swaps a temporary name for a
// symlink of theirs right between the last look and the rename, on each
// side: no name ever holds their symlink, each path keeps its old version
// (a path that was absent stays absent) and the next run takes it.
func TestApplySwapAttackBothWays(t *testing.T) {
	f := newSync(t, func(folder string) { write(t, folder, "old.txt", "old") })
	outside := t.TempDir()
	swapped := 0
	swaps := func(on bool) {
		beforeRename = nil
		if on {
			beforeRename = func(pfd int, it *Item) {
				if unix.Renameat(pfd, it.Tmp, pfd, it.Tmp+"-taken") == nil && unix.Symlinkat(outside, pfd, it.Tmp) == nil {
					swapped++
				}
			}
		}
	}
	defer swaps(false)
	check := func(root, side string) {
		t.Helper()
		for p, want := range map[string]string{"old.txt": "old", "new.txt": ""} {
			fi, err := os.Lstat(filepath.Join(root, p))
			switch {
			case want == "" && !errors.Is(err, os.ErrNotExist):
				t.Errorf("%s: %s is %v (%v), want it absent", side, p, fi, err)
			case want != "" && (err != nil || !fi.Mode().IsRegular()):
				t.Errorf("%s: %s is %v (%v): the swapped symlink was renamed into place", side, p, fi, err)
			case want != "":
				if b, _ := os.ReadFile(filepath.Join(root, p)); string(b) != want {
					t.Errorf("%s: %s = %q, want the old version", side, p, b)
				}
			}
		}
	}
	write(t, f.disk, "old.txt", "the disk's")
	write(t, f.disk, "new.txt", "new on the disk")
	swaps(true)
	wb := f.save()
	swaps(false)
	check(f.folder, "the folder")
	if len(wb.NotKept) != 2 {
		t.Errorf("the write-back did not name the two paths it gave up: %v", wb.NotKept)
	}
	write(t, f.disk, "old.txt", "old") // the disk as it was
	os.Remove(filepath.Join(f.disk, "new.txt"))
	untake := func() {
		for _, root := range []string{f.folder, f.disk} {
			matches, _ := filepath.Glob(filepath.Join(root, TempPrefix+"*-taken"))
			for _, m := range matches {
				os.Remove(m)
			}
		}
	}
	untake()
	f.save()
	write(t, f.folder, "old.txt", "the folder's")
	write(t, f.folder, "new.txt", "new in the folder")
	r := f.refresh(&Refresh{Decided: func() { swaps(true) }, Placing: nil})
	swaps(false)
	check(f.disk, "the disk")
	if len(r.NotKept) != 2 || swapped != 4 {
		t.Errorf("the refresh did not name the two paths it gave up: %v (%d swapped)", r.NotKept, swapped)
	}
	untake()
	f.refresh(&Refresh{})
	f.same("after the attack")
}

// A run killed at each step (its goroutine ends there, what it made left
// as it is): before the first rename, after each path put in place or
// removed. Each path of the target is then its old version or its new
// one, and the next run removes what the killed one left and finishes.
func TestApplyKillPoints(t *testing.T) {
	for _, dir := range []string{"write-back", "refresh"} {
		for kill := -1; kill < 12; kill++ {
			t.Run(fmt.Sprintf("%s/%d", dir, kill), func(t *testing.T) { killAt(t, dir, kill) })
		}
	}
}

func killAt(t *testing.T, direction string, kill int) {
	f := newSync(t, everyKindTree(t))
	src, dst := f.disk, f.folder
	if direction == "refresh" {
		f.save()
		src, dst = f.folder, f.disk
	}
	before := digestOf(t, dst)
	everyKind(t, src, "new")
	after := digestOf(t, src)
	steps := 0
	stop := func() {
		if steps++; steps > kill {
			runtime.Goexit()
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { stepped = nil }()
		stepped = func(*Item) { stop() }
		if direction == "refresh" {
			rec := f.record()
			defer rec.Close()
			r := &Refresh{Folder: f.folder, Disk: f.disk, S: f.s.Store, Rec: rec, Placing: stop}
			r.Run(f.ctx)
			return
		}
		rec := f.record()
		defer rec.Close()
		res, err := f.s.Save(f.ctx, f.disk, syncDisk, 20, nil, nil)
		if err != nil {
			t.Error(err)
			return
		}
		w := &PathWrite{Folder: f.folder, Disk: f.disk, S: f.s.Store, Id: res.Snapshot, Rec: rec, At: time.Now(), Placing: func(*PathWrite) { stop() }}
		w.Run(f.ctx)
	}()
	<-done
	got := digestOf(t, dst)
	for p := range before {
		if _, ok := got[p]; !ok && after[p] != "" {
			t.Errorf("killed at %d: %s is missing, though both versions have it", kill, p)
		}
	}
	for p, l := range got {
		if isTempName(filepath.Base(p)) || strings.Contains(p, "/"+TempPrefix) || strings.HasPrefix(p, TempPrefix) {
			continue
		}
		if l != before[p] && l != after[p] && !strings.HasPrefix(l, "d ") {
			t.Errorf("killed at %d: %s is neither old nor new: %s (old %s, new %s)", kill, p, l, before[p], after[p])
		}
	}
	if direction == "refresh" {
		f.refresh(&Refresh{})
	} else {
		f.save()
	}
	f.same(fmt.Sprintf("the run after a kill at %d", kill))
}
