package bench

import (
	"runtime"

	"rambar/ramdisk"
)

// unitOf is each row's unit.
var unitOf = map[RowID]Unit{rowSeqWrite: MiBps, rowSeqRead: MiBps, rowFsync: Micros, rowFullFsync: Micros,
	rowSQLiteDefault: Micros, rowSQLiteFull: Micros, rowUntar: Secs, rowCreateFiles: Secs, rowDeleteFiles: Secs}

// labelWords is a row's label for these sizes: "1 GiB write, uncached",
// "untar 2,900 files (67 MiB)".
func labelWords(id RowID, sz sizes) *words {
	seq := ramdisk.Size(sz.seq).String()
	switch id {
	case rowSeqWrite:
		return wordsOf("%s write, uncached", seq)
	case rowSeqRead:
		return wordsOf("%s read, uncached", seq)
	case rowFsync:
		return wordsOf("4 KiB write + fsync")
	case rowFullFsync:
		return wordsOf("4 KiB write + F_FULLFSYNC")
	case rowSQLiteDefault:
		return wordsOf("SQLite insert, no PRAGMA (sqlite3's defaults)")
	case rowSQLiteFull:
		if runtime.GOOS == "darwin" {
			return wordsOf("SQLite insert, PRAGMA synchronous=FULL + fullfsync=ON")
		}
		return wordsOf("SQLite insert, PRAGMA synchronous=FULL")
	case rowUntar:
		return wordsOf("untar %s files (%d MiB)", figure(sz.archiveFiles), (sz.archiveBytes+1<<19)>>20)
	case rowCreateFiles:
		return wordsOf("create %s files of 1 KiB", figure(sz.smallFiles))
	case rowDeleteFiles:
		return wordsOf("delete those %s files", figure(sz.smallFiles))
	}
	return wordsOf(string(id))
}

// labelIn is a row's label in t's language (as the report holds it when
// it is not this version's label for the report's sizes).
func (r Report) labelIn(t tongue, row RowInfo) string {
	if t.sp == nil {
		return row.Label
	}
	w := labelWords(row.ID, Options{Quick: r.Quick}.sizes())
	if w.String() != row.Label {
		return row.Label
	}
	return w.in(t)
}
