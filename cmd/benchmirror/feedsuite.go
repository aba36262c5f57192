//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// feedRounds is how many rounds of 10 changed files feedSuite takes the
// median of.
const feedRounds = 7

// feedSuite measures saves by the change feed (issue 26) on a tree of n
// files, in one run: a save after 10 changed files by the feed, the same
// change saved walking the disk (today's save, into a store of its own)
// and rsync -a --delete copying it, the median of feedRounds rounds each,
// the three taking turns; then, under a steady load (a file rewritten
// every 100 ms for steady), the time from each write to the first
// continuous save holding it being durable, p50 and p95, and the same
// for a file appended every 10 ms through a descriptor kept open
// (steadyWriter); and the CPU the
// following takes with three continuous disks idle for idle, then while
// one of them is written.
func feedSuite(r *report, n int, dest string, steady, idle time.Duration) error {
	ctx := context.Background()
	vol, _, work, done, err := places(dest)
	if err != nil {
		return err
	}
	defer done()
	name := fmt.Sprintf("%d files", n)
	fmt.Printf("feed, %s: generating...\n", name)
	if _, err := generate(vol, n); err != nil {
		return err
	}
	v := ramdisk.Volume{Name: "Bench", MountPoint: vol}
	fed, walked := keeper.NewKeeper(filepath.Join(work, "fed")), keeper.NewKeeper(filepath.Join(work, "walked"))
	for _, k := range []*keeper.Keeper{fed, walked} {
		if _, err := k.Setup("Bench", keeper.Options{Mode: ramdisk.Keep}); err != nil {
			return err
		}
	}
	rs := filepath.Join(work, "rsync")
	if _, err := timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/"); err != nil {
		return err
	}
	f, err := fed.Follow(v)
	if err != nil {
		return err
	}
	defer f.Close()
	// The walked store's disk is marked by the fed one's: its saves are
	// forced (a save of another data folder's disk), the same work.
	for _, s := range []func() (keeper.Result, error){
		func() (keeper.Result, error) { return fed.Save(ctx, v, keeper.SaveOptions{Follow: f}) },
		func() (keeper.Result, error) { return walked.Save(ctx, v, keeper.SaveOptions{Force: true}) },
	} {
		if _, err := s(); err != nil {
			return err
		}
	}
	var byFeed, byWalk, byRsync []time.Duration
	files := filesOf(vol)
	for round := range feedRounds {
		if err := changeFew(files, 10, round); err != nil {
			return err
		}
		steps := []func() error{
			func() error {
				start := time.Now()
				res, err := fed.Save(ctx, v, keeper.SaveOptions{Follow: f})
				if err == nil && (!res.ByFeed || res.CopiedFiles < 10) {
					err = fmt.Errorf("the save by the feed read the whole disk or missed changes: %+v", res.Result)
				}
				byFeed = append(byFeed, time.Since(start))
				return err
			},
			func() error {
				start := time.Now()
				_, err := walked.Save(ctx, v, keeper.SaveOptions{Force: true})
				byWalk = append(byWalk, time.Since(start))
				return err
			},
			func() error {
				d, err := timed(work, "rsync", "-a", "--delete", vol+"/", rs+"/")
				byRsync = append(byRsync, d)
				return err
			},
		}
		for i := range steps {
			if err := steps[(i+round)%len(steps)](); err != nil {
				return err
			}
		}
		fmt.Printf("feed, %s, round %d: by the feed %v, walking %v, rsync %v\n", name, round+1,
			byFeed[round].Round(time.Microsecond), byWalk[round].Round(time.Microsecond), byRsync[round].Round(time.Microsecond))
	}
	feedMed := median(byFeed)
	r.duration(name+": save of 10 changed files by the feed", feedMed, 25*time.Millisecond)
	r.ratio(name+": save of 10 changed files by the feed vs walking the disk", feedMed, median(byWalk), 10)
	r.ratio(name+": save of 10 changed files by the feed vs rsync -a --delete", feedMed, median(byRsync), 50)
	if err := steadyLoad(r, name, fed, v, f, steady); err != nil {
		return err
	}
	if err := steadyWriter(r, name, fed, v, f, steady); err != nil {
		return err
	}
	return idleCPU(r, dest, idle)
}

// median is the middle of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// filesOf lists the regular files of the tree at root (not the marker).
func filesOf(root string) []string {
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && filepath.Base(p) != keeper.MarkerName {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// changeFew rewrites n of files, spread over them, other ones each round.
func changeFew(files []string, n, round int) error {
	for i := range n {
		p := files[(i*len(files)/n+round*7919)%len(files)]
		if err := os.WriteFile(p, []byte(fmt.Sprintf("changed in round %d\n", round)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// steadyLoad rewrites a file every 100 ms for d while the disk is saved
// continuously (the app's loop: keeper.Following.Next, then a save by
// the feed), and reports how long each write waited for a durable
// snapshot holding it: every write made before a save began is in it.
func steadyLoad(r *report, name string, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, d time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var writes []time.Time
	var waits []time.Duration
	type save struct{ start, end time.Time }
	saves := make(chan save, 1024)
	errs := make(chan error, 1)
	go func() {
		for f.Next(ctx) {
			start := time.Now()
			if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f}); err != nil && ctx.Err() == nil {
				errs <- err
				return
			}
			saves <- save{start, time.Now()}
		}
		errs <- nil
	}()
	p := filepath.Join(v.MountPoint, "steady.log")
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(d)
	for time.Now().Before(end) || len(writes) > 0 {
		select {
		case <-tick.C:
			if time.Now().Before(end) {
				writes = append(writes, time.Now())
				if err := os.WriteFile(p, []byte(time.Now().String()), 0o644); err != nil {
					return err
				}
			}
		case s := <-saves:
			for len(writes) > 0 && !writes[0].After(s.start) {
				waits = append(waits, s.end.Sub(writes[0]))
				writes = writes[1:]
			}
		case err := <-errs:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("steady load: no save for 30 s")
		}
	}
	slices.Sort(waits)
	p50, p95 := waits[len(waits)/2], waits[len(waits)*95/100]
	r.info(name+": steady load, write to durable snapshot, p50", ms(p50))
	r.duration(name+": steady load, write to durable snapshot, p95", p95, 5*time.Second)
	return nil
}

// idleCPU follows three continuously saved disks of 2,000 files, idle
// for d, and reports the CPU this process takes meanwhile, then while one
// is written every 100 ms.
func idleCPU(r *report, dest string, d time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	work, err := os.MkdirTemp(dest, "rambar-bench-idle-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	k := keeper.NewKeeper(filepath.Join(work, "data"))
	var vols []ramdisk.Volume
	for i := range 3 {
		vol, _, done, err := tmpfsPair()
		if err != nil {
			return err
		}
		defer done()
		if _, err := generate(vol, 2000); err != nil {
			return err
		}
		v := ramdisk.Volume{Name: fmt.Sprintf("Idle%d", i), MountPoint: vol}
		if _, err := k.Setup(v.Name, keeper.Options{Mode: ramdisk.Keep, SaveEvery: keeper.AutosaveAuto}); err != nil {
			return err
		}
		f, err := k.Follow(v)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f}); err != nil {
			return err
		}
		go func() {
			for f.Next(ctx) {
				k.Save(ctx, v, keeper.SaveOptions{Follow: f})
			}
		}()
		vols = append(vols, v)
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, t0 := cpu(), time.Now()
	time.Sleep(d)
	r.share(fmt.Sprintf("3 continuous disks idle for %s: CPU", d), float64(cpu()-c0)/float64(time.Since(t0))*100, 0.5)
	c0, t0 = cpu(), time.Now()
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		os.WriteFile(filepath.Join(vols[0].MountPoint, "busy.log"), []byte(time.Now().String()), 0o644)
	}
	r.share(fmt.Sprintf("3 continuous disks, one written every 100 ms for %s: CPU", d), float64(cpu()-c0)/float64(time.Since(t0))*100, 0)
	return nil
}
