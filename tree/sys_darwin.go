//go:build darwin

package tree

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

func statCtime(st *unix.Stat_t) unix.Timespec { return st.Ctim }

// StatMtime is st's modification time.
func StatMtime(st *unix.Stat_t) unix.Timespec { return st.Mtim }

// XattrIsContent: on macOS every attribute is the file's (Finder tags,
// quarantine, resource forks) except the ones the system keeps for itself.
func XattrIsContent(name string) bool { return !strings.HasPrefix(name, "com.apple.system.") }

// FlushTree makes the written files and the folder dir holding them
// durable. macOS has no syncfs: each file is pushed with a barrier
// (pushFile), and one F_FULLFSYNC, of dir, flushes the drive's cache for
// all of them; never a full flush per file.
func FlushTree(dir string, files []string) error {
	for _, p := range files {
		fd, err := OpenRetry(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return fmt.Errorf("open %s: %w", p, err)
		}
		err = PushFile(fd)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("fsync %s: %w", p, err)
		}
	}
	fd, err := OpenRetry(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer unix.Close(fd)
	if err := fullSync(fd); err != nil {
		return fmt.Errorf("%s: %w", dir, err)
	}
	return nil
}

// SyncEachFile is true: macOS pushes each file as it is written
// (pushFile); the commit's full flush makes them durable.
const SyncEachFile = true

// errNoAttr is what getxattr returns for a missing attribute.
const errNoAttr = unix.ENOATTR

// kernelCopy copies in to out (APFS clones are tried before, by cloneFile).
func kernelCopy(out, in int, _ bool) (int64, error) { return readWriteCopy(out, in) }

// kernelRangeCopy is not offered here: EINVAL makes rangeCopy use pread.
func kernelRangeCopy(out, in int, off, size int64) error { return unix.EINVAL }

// StatAtime is st's access time.
func StatAtime(st *unix.Stat_t) unix.Timespec { return st.Atim }

// macReserved are the folders macOS keeps at a volume's root for itself.
var macReserved = map[string]bool{".fseventsd": true, ".Spotlight-V100": true, ".Trashes": true,
	".TemporaryItems": true, ".DocumentRevisions-V100": true}

// macEngineFiles are the files the macOS engine writes at a RAM disk's
// root when it makes it (darwin: its marker, and Spotlight's "never index"
// flag): the disk's, not contents, so never saved nor written back into a
// mirrored folder.
var macEngineFiles = map[string]bool{".rambar": true, ".metadata_never_index": true}

// reservedName: on macOS the system's own folders at a volume's root, and
// the files the engine wrote there.
func reservedName(_ int, name string, st *unix.Stat_t, _ func() bool) bool {
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return macReserved[name]
	case unix.S_IFREG:
		return macEngineFiles[name]
	}
	return false
}

// ONoAtime: macOS has no O_NOATIME (its volumes mostly keep atimes lazily).
const ONoAtime = 0
