//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"rambar/keeper"
	"rambar/ramdisk"
)

const (
	// steadyEvery is how often the steady writer appends to its file.
	steadyEvery = 10 * time.Millisecond
	// steadyGrace is how long after the writer stops its last writes are
	// waited for to be durable.
	steadyGrace = 30 * time.Second
	// steadyName is the steady writer's file, at the disk's top.
	steadyName = "steady-writer.log"
)

// steadyWriter appends a line to a file every steadyEvery through one
// descriptor it keeps open (a log, a database: a file that never rests),
// for d, while the disk is saved continuously by its feed (the app's
// loop: keeper.Following.Next, then a save by the feed), and reports the
// p95 of the time from each write to the end of the first save that holds
// it: a save begun after the write that committed without naming the
// file in use (a file a save names so kept an older version of itself).
// The writer then closes the file; a write no save held within
// steadyGrace counts as never durable.
func steadyWriter(r *report, name string, k *keeper.Keeper, v ramdisk.Volume, f *keeper.Following, d time.Duration) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type save struct {
		start, end time.Time
		holds      bool
	}
	saves := make(chan save, 1024)
	errs := make(chan error, 1)
	go func() {
		for f.Next(ctx) {
			start := time.Now()
			res, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f})
			if err != nil && ctx.Err() == nil {
				errs <- fmt.Errorf("steady writer: a save by the feed: %w", err)
				return
			}
			saves <- save{start, time.Now(), holdsSteady(res)}
		}
	}()
	file, err := os.OpenFile(filepath.Join(v.MountPoint, steadyName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer file.Close()
	var writes []time.Time
	var waits []time.Duration
	total, held := 0, 0
	tick := time.NewTicker(steadyEvery)
	defer tick.Stop()
	end := time.Now().Add(d)
	for len(writes) > 0 || time.Now().Before(end) {
		if !time.Now().Before(end) && file != nil {
			if err := file.Close(); err != nil {
				return err
			}
			file = nil
		}
		if time.Since(end) > steadyGrace {
			break
		}
		select {
		case <-tick.C:
			if file != nil {
				total++
				writes = append(writes, time.Now())
				if _, err := fmt.Fprintf(file, "write %d at %s\n", total, time.Now().Format(time.RFC3339Nano)); err != nil {
					return err
				}
			}
		case s := <-saves:
			if s.holds {
				held++
				for len(writes) > 0 && !writes[0].After(s.start) {
					waits = append(waits, s.end.Sub(writes[0]))
					writes = writes[1:]
				}
			}
		case err := <-errs:
			return err
		}
	}
	fmt.Printf("%s: steady writer: %d writes, %d durable, %d saves held the file\n", name, total, len(waits), held)
	figure := name + ": steady writer: write → durable p95"
	slices.Sort(waits)
	if k95 := total * 95 / 100; k95 >= len(waits) {
		r.never(figure, fmt.Sprintf("never durable in %s after the writes stopped (%d of %d writes)", steadyGrace, total-len(waits), total), 5*time.Second)
	} else {
		r.info(name+": steady writer: write → durable p50", ms(waits[total/2]))
		r.duration(figure, waits[k95], 5*time.Second)
	}
	return nil
}

// holdsSteady reports whether a save holds the steady writer's file as it
// was when the save began or later: it committed without naming the file
// among those it found in use (a label cut short names it maybe).
func holdsSteady(res keeper.Result) bool {
	if res.Snapshot == "" {
		return false
	}
	u := res.InUse
	return u == nil || u.Count <= len(u.Paths) && !slices.Contains(u.Paths, steadyName)
}
