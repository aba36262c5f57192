//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

// Seed 004's workload (issue 36), on the pnpm tree (pnpmtree.go).
const (
	// pnpmRounds is how many rounds the saves from the terminal are the
	// quickest of, the tools taking turns.
	pnpmRounds = 3
	// pnpmChurns is how many times the churn removes node_modules and
	// makes it again while the disk is saved continuously.
	pnpmChurns = 2
	// pnpmDurableWait is how long the churn's last change is waited for
	// to be durable.
	pnpmDurableWait = time.Minute
	// pnpmIdle is how long the followed disk is left idle for the CPU
	// figure.
	pnpmIdle = 15 * time.Second
)

// pnpmSuite measures seed 004's workload on a kept tmpfs disk holding
// the pnpm tree: the full save beside rsync -aH --delete; from the
// terminal (a process each, as `rambar save`), a save with nothing changed
// and one with one changed file beside rsync -aH --delete + syncfs of the
// same tree into the same local disk (both keep the hard links: the same
// work), and info's question whether anything changed; a save of one
// changed file by the change feed; then node_modules removed wholesale
// and made again pnpmChurns times (git clean -fdX, pnpm install) while the
// disk is saved continuously by its feed, as the menu-bar app does: how
// many of those saves failed, how long after the churn stopped its last
// change was durable, and the CPU and memory the following takes once
// the disk is idle.
func pnpmSuite(r *report, dest string) error {
	vol, _, work, done, err := places(dest)
	if err != nil {
		return err
	}
	defer done()
	name := "pnpm tree"
	fmt.Printf("%s: generating...\n", name)
	c, err := pnpmGenerate(vol)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d paths, %d folders, %d hard-linked names into the store, %s in tmpfs %s; destination %s\n",
		name, c.paths, c.folders, c.links, ramdisk.Size(c.bytes).Short(), vol, work)
	name = fmt.Sprintf("pnpm tree, %d paths", c.paths)
	data, rs := filepath.Join(work, "data"), filepath.Join(work, "rsync")
	k := keeper.NewKeeper(data)
	if _, err := k.Setup("Bench", keeper.Options{Mode: ramdisk.Keep}); err != nil {
		return err
	}
	syncfs(work)
	var full, fullRsync time.Duration
	if err := turns(0, func() (err error) { fullRsync, err = rsyncLinks(work, vol, rs); return err },
		func() (err error) { full, _, err = ours("save", data, vol); return err }); err != nil {
		return err
	}
	fmt.Printf("%s: full save %v, rsync -aH %v\n", name, full.Round(time.Millisecond), fullRsync.Round(time.Millisecond))
	r.ratio(name+": full save vs rsync -aH --delete + syncfs", full, fullRsync, 0)
	if err := pnpmTerminal(r, name, work, vol, data, rs, c.sample); err != nil {
		return err
	}
	v := ramdisk.Volume{Name: "Bench", MountPoint: vol}
	f, err := k.Follow(v)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pnpmFeed(r, name, k, v, f, c.sample); err != nil {
		return err
	}
	return pnpmChurn(r, name, k, v, f)
}

// rsyncLinks times rsync -aH --delete of vol into rs, then syncfs (timed).
func rsyncLinks(work, vol, rs string) (time.Duration, error) {
	return timed(work, "rsync", "-aH", "--delete", vol+"/", rs+"/")
}

// pnpmTerminal measures saves from the terminal: nothing changed, then
// sample changed, each beside rsync, the quickest of pnpmRounds rounds;
// and the question info asks (whether the disk changed since its save).
func pnpmTerminal(r *report, name, work, vol, data, rs, sample string) error {
	var same, sameRsync, one, oneRsync, dirty time.Duration
	for round := range pnpmRounds {
		var mt, rt time.Duration
		rsync := func() (err error) { rt, err = rsyncLinks(work, vol, rs); return err }
		save := func() (err error) { mt, _, err = ours("save", data, vol); return err }
		if err := turns(round, rsync, save); err != nil {
			return err
		}
		quicker(&same, mt)
		quicker(&sameRsync, rt)
		d, _, err := ours("dirty", data, vol)
		if err != nil {
			return err
		}
		quicker(&dirty, d)
		fmt.Printf("%s, round %d: nothing changed: save %v, rsync %v; info's scan %v\n", name, round+1,
			mt.Round(time.Millisecond), rt.Round(time.Millisecond), d.Round(time.Millisecond))
		if err := os.WriteFile(sample, []byte(fmt.Sprintf("changed in round %d\n", round)), 0o644); err != nil {
			return err
		}
		if err := turns(round, rsync, save); err != nil {
			return err
		}
		quicker(&one, mt)
		quicker(&oneRsync, rt)
		fmt.Printf("%s, round %d: one changed file: save %v, rsync %v\n", name, round+1, mt.Round(time.Millisecond), rt.Round(time.Millisecond))
	}
	r.duration(name+": save from the terminal, nothing changed", same, 2*time.Second)
	r.ratio(name+": save from the terminal, nothing changed, vs rsync -aH --delete + syncfs", same, sameRsync, 0)
	r.ratio(name+": save from the terminal, one changed file, vs rsync -aH --delete + syncfs", one, oneRsync, 5)
	r.info(name+": whether the disk changed since its save (info's scan, from the terminal)", ms(dirty))
	return nil
}

// pnpmFeed measures a save of sample changed by the disk's change feed
// (f), the median of feedRounds rounds, after the save that starts it.
func pnpmFeed(r *report, name string, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, sample string) error {
	ctx := context.Background()
	if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f}); err != nil {
		return err
	}
	var took []time.Duration
	for round := range feedRounds {
		if err := os.WriteFile(sample, []byte(fmt.Sprintf("changed by the feed's round %d\n", round)), 0o644); err != nil {
			return err
		}
		start := time.Now()
		res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
		took = append(took, time.Since(start))
		if err == nil && (!res.ByFeed || res.CopiedFiles < 1) {
			err = fmt.Errorf("the save by the feed read the whole disk or missed the change: %+v", res.Result)
		}
		if err != nil {
			return err
		}
	}
	fmt.Printf("%s: one changed file by the feed: %v\n", name, took)
	r.duration(name+": save of one changed file by the feed", median(took), 50*time.Millisecond)
	return nil
}

// feedSave is one continuous save: when it ran and how it ended.
type feedSave struct {
	start, end time.Time
	asOf       time.Time // the snapshot holds every change made before
	err        error
	inUse      bool
	byFeed     bool
	copied     int
}

// pnpmChurn removes node_modules and makes it again pnpmChurns times while
// the disk is saved continuously by its feed (the app's loop: Next, then
// a save by the feed), and reports the saves that failed, the time from
// the churn's end to the first committed save (not labelled in use) that
// holds every change made before that end (its scan began after it:
// Result.AsOf), and the CPU and resident memory of this process while the
// followed disk then stays idle for pnpmIdle.
func pnpmChurn(r *report, name string, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var saves []feedSave
	loop := make(chan struct{})
	go func() {
		defer close(loop)
		for f.Next(ctx) {
			start := time.Now()
			res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
			if ctx.Err() != nil {
				return
			}
			mu.Lock()
			saves = append(saves, feedSave{start, time.Now(), res.AsOf, err, res.InUse != nil, res.ByFeed, res.CopiedFiles})
			mu.Unlock()
		}
	}()
	for i := range pnpmChurns {
		clean, install, err := pnpmChurnOnce(v.MountPoint)
		if err != nil {
			return err
		}
		fmt.Printf("%s: churn %d: node_modules removed in %v, made again in %v\n", name, i+1,
			clean.Round(time.Millisecond), install.Round(time.Millisecond))
	}
	stop := time.Now()
	durable := time.Duration(-1)
	for durable < 0 && time.Since(stop) < pnpmDurableWait {
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		for _, s := range saves {
			if s.asOf.After(stop) && s.err == nil && !s.inUse {
				durable = s.end.Sub(stop)
				break
			}
		}
		mu.Unlock()
	}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	c0, t0 := cpu(), time.Now()
	time.Sleep(pnpmIdle)
	idle := float64(cpu()-c0) / float64(time.Since(t0)) * 100
	rss := statusBytes("VmRSS:")
	cancel()
	<-loop
	for _, s := range saves {
		if s.end.After(stop.Add(-10 * time.Second)) {
			fmt.Printf("%s: a continuous save from %+.2fs to %+.2fs of the churn's end, as of %+.2fs: by feed %v, %d copied, in use %v, error %v\n",
				name, s.start.Sub(stop).Seconds(), s.end.Sub(stop).Seconds(), s.asOf.Sub(stop).Seconds(), s.byFeed, s.copied, s.inUse, s.err)
		}
	}
	failed := 0
	for _, s := range saves {
		if s.err != nil {
			if failed++; failed <= 3 {
				fmt.Printf("%s: a save by the feed failed during the churn: %v\n", name, s.err)
			}
		}
	}
	r.failures(name+": saves by the feed that failed during the churn", failed, len(saves))
	if durable < 0 {
		r.never(name+": churn stopped -> its last change durable", fmt.Sprintf("never durable in %s", pnpmDurableWait), 5*time.Second)
	} else {
		r.duration(name+": churn stopped -> its last change durable", durable, 5*time.Second)
	}
	r.share(fmt.Sprintf("%s: followed disk idle for %s after the churn: CPU", name, pnpmIdle), idle, 1)
	r.resident(name+": followed disk idle: resident memory of the following process", rss, 150<<20)
	return nil
}
