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

// feedPhrase says which feed follows a disk and what it holds, in s's
// language. Why it is not fanotify and why it lost changes are the English
// details the menu-bar app published (keeper.FeedStatus).
func feedPhrase(s speech, f changefeed.Status) string {
	var said string
	switch f.Kind {
	case changefeed.KindFanotify:
		said = s.T("fanotify: one mark on the disk's file system, no inotify watch")
	case changefeed.KindInotify:
		parts := []string{s.T("inotify: %d watches (all disks together hold at most %d, one eighth of the user's fs.inotify.max_user_watches)",
			f.Watches, f.Budget)}
		if f.Marks > 0 {
			parts = append(parts, s.T("%d folders past that followed by fanotify marks (which the desktop's inotify programs do not share)", f.Marks))
		}
		if f.Unwatched > 0 {
			parts = append(parts, s.T("%d folders past that, read again by every save (every few seconds)", f.Unwatched))
		}
		if f.Why != "" {
			parts = append(parts, s.T("not fanotify: %s", f.Why))
		}
		said = strings.Join(parts, s.clauseSep())
	default:
		said = s.T("%s: one stream for the volume, no watch per folder", f.Kind)
	}
	if f.Mode != "" {
		said = s.T("%s (test mode: %s)", said, f.Mode)
	}
	if f.Lost != "" {
		said += s.clauseSep() + s.T("lost: %s (the next save walks the whole disk)", strings.TrimSuffix(f.Lost, "."))
	}
	return said
}

// printFeeds prints doctor's change feeds: how this RAMBar would follow a
// disk, and the feed of each disk the menu-bar app follows.
func printFeeds(a *App, f *feedsJSON) {
	if f == nil {
		return
	}
	say := a.say()
	switch {
	case f.Fanotify:
		fmt.Fprintln(a.Stdout, say.T("Change feeds: fanotify (one mark per disk, no inotify watch) where the disk's file system names folders by handle; else inotify"))
	case f.WatchBudget > 0:
		fmt.Fprintln(a.Stdout, say.T("Change feeds: inotify, at most %d watches for all disks (one eighth of fs.inotify.max_user_watches), "+
			"fanotify marks on the folders past it where the kernel allows a normal user them (Linux 5.13), else those are read again by every save; "+
			"no fanotify filesystem mark: %s", f.WatchBudget, f.FanotifyDenied))
	}
	for _, d := range f.Disks {
		fmt.Fprintf(a.Stdout, "  %s: %s\n", d.Disk, feedPhrase(say, d.Status))
	}
}
