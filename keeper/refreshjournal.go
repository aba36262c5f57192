package keeper

import (
	"fmt"
	"os"
	"strings"

	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A refresh makes each new version on the disk under a temporary name in
// the path's own folder of the disk, then renames it over the path, as a
// write-back does in the folder (journal.go). Its names have one form,
// refreshPrefix and 16 hex digits (".rambar-refresh-0123456789abcdef"),
// and are listed with their folders in the store's mirror/refresh-pending
// (durably) before the first is made: a refresh killed halfway leaves at
// worst such names on the disk, and the next save or refresh of the disk
// removes every one the list names before it reads the disk, so none is
// ever saved or written back.

const (
	refreshPrefix  = ".rambar-refresh-"
	refreshJournal = "refresh-pending"
	refreshMagic   = "RAMBAR-REFRESH-PENDING-1\n"
)

func refreshTemp() string { return refreshPrefix + tree.RandomID()[:16] }

// isRefreshTemp: name has refreshTemp's form.
func isRefreshTemp(name string) bool {
	hex, ok := strings.CutPrefix(name, refreshPrefix)
	return ok && len(hex) == 16 && strings.Trim(hex, "0123456789abcdef") == ""
}

var refreshTemps = foldersync.TempList{File: refreshJournal, Magic: refreshMagic, What: "the refresh's", Valid: isRefreshTemp}

func refreshJournalPath(storeDir string) string { return refreshTemps.Path(storeDir) }

// writeRefreshJournal lists temps (on the disk) in the store, durably,
// before they are made.
func writeRefreshJournal(storeDir string, temps []foldersync.TempAt) error {
	return refreshTemps.Write(storeDir, temps)
}

// readRefreshJournal reads the list an interrupted refresh left.
func readRefreshJournal(storeDir string) ([]foldersync.TempAt, error) {
	return refreshTemps.Read(storeDir)
}

// cleanDiskTemps removes what an interrupted refresh of st's disk left
// under its temporary names on the disk mounted at mp (never following a
// symlink, never leaving the disk), then its list. It returns what it
// could not remove; the list stays then.
func cleanDiskTemps(st State, mp string) []string {
	temps, err := readRefreshJournal(st.Backing)
	if err != nil {
		return []string{err.Error()}
	}
	if len(temps) == 0 {
		os.Remove(refreshJournalPath(st.Backing))
		return nil
	}
	fd, err := tree.OpenRetry(mp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return []string{fmt.Sprintf("open %s: %v", mp, err)}
	}
	defer unix.Close(fd)
	left := foldersync.CleanTemps(fd, temps)
	if len(left) == 0 {
		os.Remove(refreshJournalPath(st.Backing))
	}
	return left
}
