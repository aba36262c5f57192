package ramdisk

import "context"

// InPlacer is an engine that can mount a disk over a folder of the user's
// (Mirror in place). disks drives it; an engine without it cannot mirror
// in place.
type InPlacer interface {
	// HideFolder makes folder reachable at hidden, an empty folder only
	// RAMBar's user can reach, before a disk is mounted over folder: the
	// load and the write-back open the folder there while the disk covers
	// its path. It must outlive RAMBar (a bind mount on Linux). An engine
	// that has no such copy returns ErrUnsupported; the write-back then
	// uncovers the folder first (Uncover, write back, Cover).
	HideFolder(ctx context.Context, folder, hidden string) error
	// FolderHidden reports whether hidden holds such a copy now.
	FolderHidden(hidden string) bool
	// UnhideFolder removes the copy at hidden; the folder is untouched.
	UnhideFolder(ctx context.Context, hidden string) error
	// Cover mounts v over folder, and returns v as it is then (its mount
	// point may change: macOS mounts a volume in one place only).
	Cover(ctx context.Context, v Volume, folder string) (Volume, error)
	// Uncover unmounts v from folder, which then shows what it holds on
	// its own file system, and returns v as it is then. In use, it gives a
	// *BusyError naming the holders and nothing changes; force unmounts it
	// anyway (lazily on Linux).
	Uncover(ctx context.Context, v Volume, folder string, force bool) (Volume, error)
	// Covers reports whether v is what is mounted over folder now.
	Covers(ctx context.Context, v Volume, folder string) bool
	// Reattach mounts the RAM disk that covers folder at mountPoint again,
	// when it is a disk RAMBar made that was unmounted from there (by
	// hand) while still covering the folder, so it is listed and can be
	// written back and ejected; false when there is no such disk. Engines
	// that list a volume wherever it is mounted return false.
	Reattach(ctx context.Context, folder, mountPoint string) (bool, error)
}
