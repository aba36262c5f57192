//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// Mirror folders (issue 22): a folder on the local disk loaded onto a RAM
// disk, then written back after a few changes, against rsync -a --delete
// doing the same (what TmpDisk and profile-sync-daemon run).
const (
	// mirrorMaxWriteBack is the longest a write-back of one changed file
	// in a 100,000-file folder may take (save and write-back, from process
	// start).
	mirrorMaxWriteBack = 500 * time.Millisecond
	// mirrorMaxRSS is the most memory a load or a write-back of 100,000
	// files may take.
	mirrorMaxRSS = 128 << 20
	// mirrorRuns is how many rounds each write-back figure is the
	// quickest of.
	mirrorRuns = 5
)

// mirrorTree is one folder the mirror suite measures.
type mirrorTree struct {
	name string
	n    int
	gen  func(root string, n int) (int64, error)
}

// mirrorTrees are the folders: 10,000 and 100,000 files in one folder,
// and shaped like a checkout.
func mirrorTrees(counts []int) []mirrorTree {
	var out []mirrorTree
	for _, n := range counts {
		out = append(out, mirrorTree{fmt.Sprintf("mirror, %d files in one folder", n), n, generateFlat},
			mirrorTree{fmt.Sprintf("mirror, %d files like a checkout", n), n, generate})
	}
	return out
}

// mirrorSuite measures a Mirror load of the tree, and write-backs after 1,
// 100 and 1% changed files, against rsync; it adds each figure to r.
func mirrorSuite(r *report, tree mirrorTree, dest string) error {
	vol, back, work, done, err := places(dest)
	if err != nil {
		return err
	}
	defer done()
	folder, data, rs := filepath.Join(work, "folder"), filepath.Join(work, "data"), filepath.Join(work, "rsync")
	fmt.Printf("%s: generating...\n", tree.name)
	if _, err := tree.gen(folder, tree.n); err != nil {
		return err
	}
	if _, err := keeper.NewKeeper(data).Setup("Bench", keeper.Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		return err
	}
	syncfs(work)
	// The load, from a cold cache, as at login: rsync into the other
	// tmpfs, then RAMBar onto the disk.
	if err := dropCaches(); err != nil {
		return err
	}
	rsLoad, err := timed(back, "rsync", "-a", "--delete", folder+"/", filepath.Join(back, "rsync")+"/")
	if err != nil {
		return err
	}
	os.RemoveAll(filepath.Join(back, "rsync"))
	if err := dropCaches(); err != nil {
		return err
	}
	load, rss, err := ours("load", data, vol)
	if err != nil {
		return err
	}
	r.ratio(tree.name+": load vs rsync -a", load, rsLoad, 0)
	r.memoryLimit(tree.name+": load peak memory (VmHWM)", rss, tree.n >= 100000)
	if _, err := timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/"); err != nil {
		return err
	}
	for _, c := range []struct {
		n    int
		what string
	}{{1, "1 changed"}, {100, "100 changed"}, {tree.n / 100, fmt.Sprintf("1%% (%d) changed", tree.n/100)}} {
		if err := writeBackRounds(r, tree, c.n, c.what, work, vol, data, rs); err != nil {
			return err
		}
	}
	return appWriteBacks(r, tree, work, vol, data, rs)
}

// appWriteBacks measures the menu-bar app's saves of the Mirror disk
// (autosave, continuous saves, Save Now): the app follows the disk by its
// change feed, so a save reads only the folders that changed, then writes
// them back; against rsync -a --delete, the quickest of mirrorRuns rounds
// each, taking turns going first. The ≥ 5x target of a write-back of one
// changed file in a 100,000-file folder is held to it: it is the app that
// writes Mirror folders back (`rambar save` from a terminal walks the
// disk, above).
func appWriteBacks(r *report, tree mirrorTree, work, vol, data, rs string) error {
	ctx := context.Background()
	k := keeper.NewKeeper(data)
	v := ramdisk.Volume{Name: "Bench", MountPoint: vol}
	f, err := k.Follow(v)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f}); err != nil { // the first walks
		return err
	}
	for _, c := range []struct {
		n    int
		what string
	}{{1, "1 changed"}, {100, "100 changed"}} {
		var us, them time.Duration
		for round := 0; round < mirrorRuns; round++ {
			if err := changeFiles(vol, c.n, round+7); err != nil {
				return err
			}
			save := func() error {
				start := time.Now()
				res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
				if err == nil && (!res.ByFeed || res.Folder == nil) {
					err = fmt.Errorf("the app's save walked the disk or wrote nothing back: %+v", res.Result)
				}
				quicker(&us, time.Since(start))
				return err
			}
			rsync := func() error {
				rt, err := timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/")
				quicker(&them, rt)
				return err
			}
			if err := turns(round, rsync, save); err != nil {
				return err
			}
		}
		target := 0.0
		if c.n == 1 && tree.n >= 100000 {
			target = 5
		}
		r.ratio(fmt.Sprintf("%s: the app's save with write-back (by its change feed), %s, vs rsync -a --delete", tree.name, c.what), us, them, target)
	}
	return nil
}

// writeBackRounds measures the save of a Mirror disk (store and
// write-back) after changed files were rewritten on it, against rsync -a
// --delete from the disk to a copy of the folder: the quickest of
// mirrorRuns rounds each, the tools taking turns going first. The part of
// the save that was the write-back is shown beside.
func writeBackRounds(r *report, tree mirrorTree, changed int, what, work, vol, data, rs string) error {
	var us, them, wbPart time.Duration
	var peak int64
	for round := 0; round < mirrorRuns; round++ {
		if err := changeFiles(vol, changed, round); err != nil {
			return err
		}
		var mt, rt, wb time.Duration
		var rss int64
		save := func() (err error) {
			mt, rss, wb, err = oursAll("save", data, vol)
			return err
		}
		rsync := func() (err error) {
			rt, err = timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/")
			return err
		}
		if err := turns(round, rsync, save); err != nil {
			return err
		}
		if us == 0 || mt < us {
			us, wbPart = mt, wb
		}
		quicker(&them, rt)
		peak = max(peak, rss)
	}
	name := fmt.Sprintf("%s: save with write-back, %s", tree.name, what)
	big := tree.n >= 100000
	if changed == 1 && big {
		r.duration(name, us, mirrorMaxWriteBack)
	}
	r.ratio(name+", vs rsync -a --delete", us, them, 0) // the app's saves are held to 5x (appWriteBacks)
	r.info(name+": of which the write-back", ms(wbPart))
	r.memoryLimit(name+": peak memory (VmHWM)", peak, big)
	return nil
}

// changeFiles rewrites n files of the tree at root in place, different
// ones each round (files are spread over the tree), with bytes that name
// n too: two figures with the same n (100 changed, and 1% of 10,000)
// rewrite the same files, and must not write the bytes they already hold.
func changeFiles(root string, n, round int) error {
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && d.Name() != keeper.MarkerName {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return err
	}
	step := max(1, len(files)/max(n, 1))
	for i := 0; i < n && i < len(files); i++ {
		p := files[(i*step+round*7919)%len(files)]
		if err := os.WriteFile(p, []byte(fmt.Sprintf("changed in round %d of %d, %d\n", round, n, i)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// generateFlat writes n files of 64 B to 8 KiB into one folder, files/.
func generateFlat(root string, n int) (int64, error) {
	dir := filepath.Join(root, "files")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	var total int64
	for i := 0; i < n; i++ {
		size := 64 + (i*7919)%8128
		b := []byte(strings.Repeat(string(rune('a'+i%26)), size))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%06d.txt", i)), b, 0o644); err != nil {
			return 0, err
		}
		total += int64(size)
	}
	return total, nil
}
