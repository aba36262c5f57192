package snapshot

import (
	"encoding/binary"
	"strings"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// SQLite in WAL mode maps its wal-index, DB-shm, shared and writable, and
// writes it at every transaction. Its bytes are never trusted on their
// own: the first connection to open the database after every other has
// gone (a restore is such a time) truncates it and rebuilds it from the
// WAL. So a save need not compare it by content: copied as it is, torn or
// not, it restores a database that opens whole. Watching it would keep
// every save of a database in steady use from ever holding still.

// walIndexVersion is the first field of a wal-index header (iVersion,
// native byte order), in each of its two copies (offsets 0 and 48).
const walIndexVersion = 3007000

// dropWALIndexes removes from mapped the inodes of the files of items that
// are SQLite wal-indexes: named DB-shm beside a regular file DB, both
// copies of their header of the wal-index's version.
func dropWALIndexes(root string, items []tree.Scanned, mapped map[uint64]bool) {
	if len(mapped) == 0 {
		return
	}
	var t *tree.DirTree
	for i := range items {
		it := &items[i]
		db, ok := strings.CutSuffix(it.Rel, "-shm")
		if !ok || !mapped[it.Id.Ino] || tree.KindOf(it.Id.Mode) != tree.KindFile {
			continue
		}
		if t == nil {
			var err error
			if t, err = tree.OpenTree(root); err != nil {
				return
			}
			defer t.Close()
		}
		if isWALIndex(t, it.Rel, db) {
			delete(mapped, it.Id.Ino)
		}
	}
}

// isWALIndex reports whether rel (beneath t) is the wal-index of the
// database db.
func isWALIndex(t *tree.DirTree, rel, db string) bool {
	var st unix.Stat_t
	if t.Lstat(db, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	fd, err := openToRead(t, rel)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	var b [52]byte
	if n, err := unix.Pread(fd, b[:], 0); err != nil || n != len(b) {
		return false
	}
	return binary.NativeEndian.Uint32(b[0:]) == walIndexVersion && binary.NativeEndian.Uint32(b[48:]) == walIndexVersion
}
