package main

import (
	"fmt"
	"strings"

	"rambar/changefeed"
	"rambar/keeper"
)

// feedJSON is which change feed follows a disk in the running menu-bar
// app, and what it holds, as the app last published it
// (keeper.FeedStatus): `info --json`'s contents.feed, doctor's
// change_feeds.disks.
type feedJSON struct {
	// Disk names the disk (doctor's list only).
	Disk string `json:"disk,omitempty"`
	changefeed.Status
}

// feedsJSON is doctor's change_feeds: how this machine follows disks.
type feedsJSON struct {
	// Fanotify: RAMBar run as this user follows a disk by fanotify (root,
	// or CAP_SYS_ADMIN); FanotifyDenied says why not.
	Fanotify       bool   `json:"fanotify"`
	FanotifyDenied string `json:"fanotify_denied,omitempty"`
	// WatchBudget is how many inotify watches one RAMBar process holds at
	// most for all its disks (Linux: one eighth of max_user_watches).
	WatchBudget int `json:"watch_budget,omitempty"`
	// Disks are the feeds of the disks the menu-bar app follows.
	Disks []feedJSON `json:"disks"`
}

// feedOf is the change feed following disk name in the running menu-bar
// app; nil when no running app publishes one.
func (a *App) feedOf(k *keeper.Keeper, name string) *feedJSON {
	fs, ok := k.FeedStatus(name)
	if !ok || fs.Feed.Kind == "" {
		return nil
	}
	if pid, running := a.menuBarPID(); !running || pid != fs.PID {
		return nil // written by an app that is gone
	}
	return &feedJSON{Status: fs.Feed}
}

// feedsOf is doctor's change_feeds for the disks named.
func (a *App) feedsOf(names []string) *feedsJSON {
	why := changefeed.FanotifyDenied()
	r := &feedsJSON{Fanotify: why == "", FanotifyDenied: why, WatchBudget: changefeed.WatchBudget(), Disks: []feedJSON{}}
	k, err := a.keeper()
	if err != nil {
		return r
	}
	for _, n := range names {
		if f := a.feedOf(k, n); f != nil {
			f.Disk = n
			r.Disks = append(r.Disks, *f)
		}
	}
	return r
}

// feedPhrase says which feed follows a disk and what it holds.
func feedPhrase(f changefeed.Status) string {
	var s string
	switch f.Kind {
	case changefeed.KindFanotify:
		s = "fanotify: one mark on the disk's file system, no inotify watch"
	case changefeed.KindInotify:
		s = fmt.Sprintf("inotify: %s (all disks together hold at most %d, one eighth of the user's fs.inotify.max_user_watches)",
			plainPlural(f.Watches, "watch", "watches"), f.Budget)
		if f.Marks > 0 {
			s += fmt.Sprintf("; %s past that followed by fanotify marks (which the desktop's inotify programs do not share)", plainPlural(f.Marks, "folder", "folders"))
		}
		if f.Unwatched > 0 {
			s += fmt.Sprintf("; %s past that, read again by every save (every few seconds)", plainPlural(f.Unwatched, "folder", "folders"))
		}
		if f.Why != "" {
			s += "; not fanotify: " + f.Why
		}
	default:
		s = f.Kind + ": one stream for the volume, no watch per folder"
	}
	if f.Mode != "" {
		s += " (test mode: " + f.Mode + ")"
	}
	if f.Lost != "" {
		s += "; lost: " + strings.TrimSuffix(f.Lost, ".") + " (the next save walks the whole disk)"
	}
	return s
}

// plainPlural is n and its noun, singular or plural.
func plainPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// printFeeds prints doctor's change feeds: how this RAMBar would follow a
// disk, and the feed of each disk the menu-bar app follows.
func printFeeds(a *App, f *feedsJSON) {
	if f == nil {
		return
	}
	switch {
	case f.Fanotify:
		fmt.Fprintln(a.Stdout, "Change feeds: fanotify (one mark per disk, no inotify watch) where the disk's file system names folders by handle; else inotify")
	case f.WatchBudget > 0:
		fmt.Fprintf(a.Stdout, "Change feeds: inotify, at most %d watches for all disks (one eighth of fs.inotify.max_user_watches), "+
			"fanotify marks on the folders past it where the kernel allows a normal user them (Linux 5.13), else those are read again by every save; "+
			"no fanotify filesystem mark: %s\n", f.WatchBudget, f.FanotifyDenied)
	}
	for _, d := range f.Disks {
		fmt.Fprintf(a.Stdout, "  %s: %s\n", d.Disk, feedPhrase(d.Status))
	}
}
