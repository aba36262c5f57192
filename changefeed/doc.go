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
// On Linux, where RAMBar may (root, or CAP_SYS_ADMIN) and the disk is a
// file system of its own that names folders by file handle (tmpfs, ext4
// on zram), the feed is one fanotify filesystem mark: no watch per
// folder; each event's folder handle is known from the save's walk
// (Watch) or from the event that made or moved it in, else asked of the
// kernel, and one nothing can find makes the feed Lost. Elsewhere it is
// inotify: a watch on every folder, added by the save's own walk (Watch)
// just before the folder's names are read, all disks together within a
// budget of one eighth of the user's max_user_watches; the folders past
// it are followed by fanotify inode marks, which a normal user may set
// (Linux 5.13) and the desktop's inotify programs do not share, and those
// past the marks' own budget (or with no marks) are read again by every
// save, which they wake every few seconds.
// Status tells which. On macOS it is an FSEvents stream with
// file-level events on the disk's volume, delivered on a dispatch queue;
// folders need no watch of their own there. FSEvents reports a write only
// when the writer closes the file, so the macOS feed also looks at the
// files open for writing on the disk (libproc, else lsof) at every take
// and every second, and marks their folders changed (openwrite.go).
//
// OpenWith's ModeFSEvents is, on Linux, a test mode with FSEvents'
// semantics (writes heard at close, folders without names, the open files
// looked at, one take in N dropped), chosen in the app by the
// environment (EnvMode: RAMBAR_FEED_MODE=fsevents), so that the tests and
// the self-test run the Mac's behaviour here. On macOS every mode is the
// native one.
//
// # Files
//
//	feed.go              the Feed's changes: folders, counts, lost, the wake-up
//	mode.go              Mode, Options, the environment's choice
//	inotify_linux.go     the Linux feed: a watch per folder (native, or FSEvents' semantics)
//	fanotify_linux.go    the Linux feed as root: one fanotify mark per disk, folders by handle
//	budget_linux.go      the inotify watch budget and the folders past it
//	marks_linux.go       fanotify inode marks on the folders past the budget
//	status.go            Status: which feed follows a disk, and its watches
//	fsevents_darwin.go   the macOS feed: one FSEvents stream per disk
//	openwrite.go         the look at the files open for writing (FSEvents' semantics)
//	openwrite_linux.go   which files are open for writing: /proc/PID/fd and fdinfo
//	openwrite_darwin.go  which files are open for writing: libproc, else lsof -F
//	openwrite_parse.go   the readers of fdinfo, lsof -F and libproc's structure (every system's tests)
package changefeed
