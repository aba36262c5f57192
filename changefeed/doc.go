// Package changefeed follows the changes to one disk while RAMBar runs, so
// that a save reads only the folders where something changed rather than
// walking the whole tree (snapshot.Follow), and the menu can tell what is
// unsaved without a scan.
//
// A Feed names folders, never files: a change to a path marks the folder
// that holds it (a write, a truncate, a chmod, an xattr, a name made,
// removed or renamed), and a folder removed or moved marks its parent. It
// never decides on its own that something did not change: whenever it may
// have missed an event (its queue overflowed, a folder could not be
// watched, the system said to rescan, the feed just started) its next
// Changes are Lost, and the save that takes them walks the whole disk, as
// without a feed. The save, not the feed, owns what a change means.
//
// On Linux the feed is inotify: a watch on every folder, added by the
// save's own walk (Watch) just before the folder's names are read, within
// the system's max_user_watches. On macOS it is an FSEvents stream with
// file-level events on the disk's volume, delivered on a dispatch queue;
// folders need no watch of their own there.
//
// # Files
//
//	feed.go            the Feed's changes: folders, counts, lost, the wake-up
//	inotify_linux.go   the Linux feed: a watch per folder
//	fsevents_darwin.go the macOS feed: one FSEvents stream per disk
package changefeed
