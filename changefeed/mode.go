package changefeed

import "os"

// Mode is which kind of feed OpenWith starts.
type Mode int

const (
	// ModeNative is the system's own feed: inotify on Linux, FSEvents on
	// macOS.
	ModeNative Mode = iota
	// ModeFSEvents, on Linux, is a test mode with FSEvents' semantics,
	// so that the Mac's behaviour is tested where the tests run: a
	// written file is heard only when it is closed (IN_CLOSE_WRITE; an
	// IN_MODIFY counts only when the file is open for writing nowhere at
	// the next look: a truncate by path, which FSEvents reports); names
	// made, removed and renamed and metadata changes are heard as they
	// happen; changes mark folders, never names (Changes.Named stays
	// nil) nor linked inodes; and one take in Options.DropEvery is Lost,
	// as FSEvents' dropped events and must-scan-subdirs are. Like the
	// macOS feed, it looks at the files open for writing under the disk
	// (openWriters) at every Take and Peek, and every second to wake the
	// saves. On macOS it is the native feed.
	ModeFSEvents
)

// EnvMode is the environment variable that picks the mode of the feeds
// the app opens (keeper.Keeper.Follow): "fsevents" is ModeFSEvents (so
// the app, run by a test or the self-test on Linux, follows its disks as
// on a Mac); anything else the native feed.
const EnvMode = "RAMBAR_FEED_MODE"

// ModeFromEnv is the mode EnvMode names.
func ModeFromEnv() Mode {
	if os.Getenv(EnvMode) == "fsevents" {
		return ModeFSEvents
	}
	return ModeNative
}

// String names the mode as EnvMode takes it.
func (m Mode) String() string {
	if m == ModeFSEvents {
		return "fsevents"
	}
	return "native"
}

// Options are how OpenWith follows a disk.
type Options struct {
	// Ignored, when not nil, leaves out the changes it names (RAMBar's
	// own files on the disk).
	Ignored func(folder, name string) bool
	// Mode is the kind of feed (ModeNative or, on Linux, ModeFSEvents).
	Mode Mode
	// DropEvery, in ModeFSEvents on Linux, makes every DropEvery-th take
	// Lost (FSEvents' drops, deterministic): 0 is one in 10, below 0
	// never.
	DropEvery int
}
