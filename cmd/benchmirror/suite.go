//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// times are a tree's measured times, for the growth lines.
type times struct {
	n                         int
	save, rsync, restore, tar time.Duration
	rsyncBack                 time.Duration
}

// suite generates a tree with gen on a tmpfs and measures a full save
// (fullRounds), (with rounds) saves with nothing and with 1% changed, and a
// restore, against the tools; it adds each figure to r under name.
func suite(r *report, name, dest string, gen func(string) (int64, error), rounds bool) (*times, error) {
	vol, back, work, done, err := places(dest)
	if err != nil {
		return nil, err
	}
	defer done()
	fmt.Printf("%s: generating...\n", name)
	total, err := gen(vol)
	if err != nil {
		return nil, err
	}
	fmt.Printf("%s: %s in tmpfs %s; destination %s\n", name, ramdisk.Size(total).Short(), vol, work)
	data, rs := filepath.Join(work, "data"), filepath.Join(work, "rsync")
	t := &times{}
	var rss int64
	if t.save, t.rsync, rss, err = fullRounds(name, work, vol, data, rs); err != nil {
		return nil, err
	}
	r.ratio(name+": full save vs rsync -a --delete + syncfs", t.save, t.rsync, 3)
	r.memory(name+": save peak memory (VmHWM)", rss)
	if rounds {
		if err := changedRounds(r, name, data, vol, work, rs); err != nil {
			return nil, err
		}
	}
	if err := restores(r, name, t, data, vol, back, rs); err != nil {
		return nil, err
	}
	return t, nil
}

// fullRounds measures full saves of vol against rsync into an empty
// folder: the quickest of two rounds each, the tools taking turns (inTurn),
// each into a new store or folder once the last round's are removed and
// the removal flushed. The last round's store (data) and copy (rs) are
// left for the rounds that follow. rss is the larger of the saves' peak
// memory.
func fullRounds(name, work, vol, data, rs string) (save, rsync time.Duration, rss int64, err error) {
	for round := 0; round < 2; round++ {
		os.RemoveAll(data)
		os.RemoveAll(rs)
		syncfs(work)
		if _, err := keeper.NewKeeper(data).Setup("Bench", keeper.Options{Mode: ramdisk.Keep}); err != nil {
			return 0, 0, 0, err
		}
		syncfs(work)
		mt, rt, peak, err := inTurn(round, work, vol, data, rs)
		if err != nil {
			return 0, 0, 0, err
		}
		quicker(&save, mt)
		quicker(&rsync, rt)
		rss = max(rss, peak)
		fmt.Printf("%s: full save, round %d: mirror %v, rsync %v\n", name, round+1, mt.Round(time.Millisecond), rt.Round(time.Millisecond))
	}
	return save, rsync, rss, nil
}

// inTurn times rsync of vol to rs and a save of vol into the store data,
// rsync first in even rounds and the save first in odd ones, and returns
// the save's time, rsync's and the save's peak memory.
func inTurn(round int, work, vol, data, rs string) (mine, theirs time.Duration, peak int64, err error) {
	rsync := func() (err error) {
		theirs, err = timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/")
		return err
	}
	save := func() (err error) {
		mine, peak, err = ours("save", data, vol)
		return err
	}
	if err := turns(round, rsync, save); err != nil {
		return 0, 0, 0, err
	}
	return mine, theirs, peak, nil
}

// turns runs theirs then ours in even rounds, ours then theirs in odd
// ones, so that neither tool always finds the caches as the other left
// them.
func turns(round int, theirs, ours func() error) error {
	first, second := theirs, ours
	if round%2 == 1 {
		first, second = ours, theirs
	}
	if err := first(); err != nil {
		return err
	}
	return second()
}

// quicker sets *d to x when x is quicker, or *d is not set yet.
func quicker(d *time.Duration, x time.Duration) {
	if *d == 0 || x < *d {
		*d = x
	}
}

// changedRounds measures saves with nothing changed, then with 1% changed:
// the quickest of changedRuns rounds each, as these runs are short and the
// machine shared; the tools take turns going first (inTurn).
func changedRounds(r *report, name, data, vol, work, rs string) error {
	var uN, rN, uC, rC time.Duration
	for round := 0; round < changedRuns; round++ {
		mt, rt, _, err := inTurn(round, work, vol, data, rs)
		if err != nil {
			return err
		}
		quicker(&uN, mt)
		quicker(&rN, rt)
		if _, err := change(vol, round+1); err != nil {
			return err
		}
		if mt, rt, _, err = inTurn(round, work, vol, data, rs); err != nil {
			return err
		}
		quicker(&uC, mt)
		quicker(&rC, rt)
	}
	r.ratio(name+": save, nothing changed, vs rsync", uN, rN, 5)
	r.ratio(name+": save, 1% changed, vs rsync", uC, rC, 5)
	return nil
}

// changedRuns is how many rounds changedRounds takes the quickest of.
const changedRuns = 5

// restores measures a restore into an empty tmpfs folder against rsync and
// tar from rsync's copy, each copy removed before the next, and checks the
// restored tree is the disk's. Each starts with nothing of the disk cached
// (dropCaches), as a restore at login does: the store's large objects were
// written past the cache (direct I/O) while rsync's copy would still be in
// it.
func restores(r *report, name string, t *times, data, vol, back, rs string) error {
	var err error
	rsBack, tarBack, usBack := filepath.Join(back, "rsync-back"), filepath.Join(back, "tar-back"), filepath.Join(back, "us-back")
	if err := dropCaches(); err != nil {
		return err
	}
	if t.rsyncBack, err = timed(back, "rsync", "-a", "--delete", rs+"/", rsBack+"/"); err != nil {
		return err
	}
	os.RemoveAll(rsBack)
	if err := dropCaches(); err != nil {
		return err
	}
	if t.tar, err = tarPipe(rs, tarBack); err != nil {
		return err
	}
	os.RemoveAll(tarBack)
	os.Mkdir(usBack, 0o755)
	if err := dropCaches(); err != nil {
		return err
	}
	if t.restore, _, err = ours("restore", data, usBack); err != nil {
		return err
	}
	r.ratio(name+": restore vs rsync", t.restore, t.rsyncBack, 2.5)
	r.ratio(name+": restore vs tar -c | tar -x", t.restore, t.tar, 1.2)
	want, err := keeper.DigestOf(vol, true)
	if err != nil {
		return err
	}
	got, err := keeper.DigestOf(usBack, true)
	if err != nil {
		return err
	}
	if d := want.Diff(got, 3); len(d) > 0 {
		return fmt.Errorf("the restored tree differs from the source at %v", d)
	}
	return nil
}

// storeSizes saves 200,000 tiny files and a 1 GiB sparse file and adds the
// stores' sizes on disk to r.
func storeSizes(r *report, dest string) error {
	for _, c := range []struct {
		name  string
		gen   func(string) (int64, error)
		limit func(bytes int64) int64
		rss   bool
	}{
		{"store size, 200,000 tiny files", func(root string) (int64, error) { return generateTiny(root, 200000) },
			func(b int64) int64 { return 2*b + 16<<20 }, true},
		{"store size, 1 GiB sparse file with 4 KiB of data", func(root string) (int64, error) { return generateSparse(root, 1<<30) },
			func(int64) int64 { return 1 << 20 }, false},
	} {
		if err := storeSize(r, c.name, dest, c.gen, c.limit, c.rss); err != nil {
			return err
		}
	}
	return nil
}

// storeSize is one of storeSizes' figures.
func storeSize(r *report, name, dest string, gen func(string) (int64, error), limit func(int64) int64, rss bool) error {
	vol, _, work, done, err := places(dest)
	if err != nil {
		return err
	}
	defer done()
	fmt.Printf("%s: generating...\n", name)
	bytes, err := gen(vol)
	if err != nil {
		return err
	}
	data := filepath.Join(work, "data")
	k := keeper.NewKeeper(data)
	st, err := k.Setup("Bench", keeper.Options{Mode: ramdisk.Keep})
	if err != nil {
		return err
	}
	_, peak, err := ours("save", data, vol)
	if err != nil {
		return err
	}
	n, err := allocated(st.Backing)
	if err != nil {
		return err
	}
	r.size(name, n, bytes, limit(bytes))
	if rss {
		r.memory(name+": save peak memory (VmHWM)", peak)
	}
	return nil
}
