// Package bench answers "does a RAM disk help?" with numbers from the user's
// own machine.
//
// Run measures storage targets (RAM disks and ordinary disk folders) with the
// rows of the first seed's benchmark: uncached sequential write and read,
// 4 KB write + fsync, 4 KB write + F_FULLFSYNC, SQLite inserts with default and
// full sync, unpacking an archive shaped like a language's standard library,
// and creating and deleting 20,000 small files. Each row is run several times
// and reported as the median with min and max.
//
// Trial runs the user's own command on a copy of a folder on a RAM disk and in
// place, alternating, and says whether the RAM disk made a measurable
// difference.
//
// External programs (sqlite3, fio, dd, tar) are started with argv only, never
// a shell string. Of the project the package imports only ramdisk, i18n
// (a report is worded through an i18n.Speaker, English when it is nil) and
// internal/textwidth.
package bench
