package mirror

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
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

func refreshTemp() string { return refreshPrefix + randomID()[:16] }

// isRefreshTemp: name has refreshTemp's form.
func isRefreshTemp(name string) bool {
	hex, ok := strings.CutPrefix(name, refreshPrefix)
	return ok && len(hex) == 16 && strings.Trim(hex, "0123456789abcdef") == ""
}

func refreshJournalPath(storeDir string) string {
	return filepath.Join(recordDir(storeDir), refreshJournal)
}

// writeRefreshJournal lists temps (on the disk) in the store, durably,
// before they are made.
func writeRefreshJournal(storeDir string, temps []tempAt) error {
	e := &encoder{b: append([]byte(nil), refreshMagic...)}
	e.uv(uint64(len(temps)))
	for _, t := range temps {
		e.str(t.dir)
		e.str(t.name)
	}
	e.fixed32(crc32.ChecksumIEEE(e.b))
	if err := os.MkdirAll(recordDir(storeDir), 0o700); err != nil {
		return noSpace(fmt.Errorf("make %s: %w", recordDir(storeDir), err))
	}
	if err := atomicfile.WriteFile(refreshJournalPath(storeDir), e.b, 0o600); err != nil {
		return noSpace(fmt.Errorf("note the refresh's temporary names: %w", err))
	}
	return nil
}

// readRefreshJournal reads the list an interrupted refresh left; none
// when there is none. A damaged list is refused: nothing is removed by it.
func readRefreshJournal(storeDir string) ([]tempAt, error) {
	name := refreshJournalPath(storeDir)
	b, err := readBounded(name, maxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !crcOK(b) {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	d := &decoder{b: b[:len(b)-4]}
	d.magic(refreshMagic)
	n := d.count(2)
	out := make([]tempAt, 0, n)
	for i := 0; i < n && !d.bad; i++ {
		t := tempAt{dir: d.str(), name: d.str()}
		if checkPath(t.dir) != nil || !isRefreshTemp(t.name) {
			return nil, fmt.Errorf("%s is damaged", name)
		}
		out = append(out, t)
	}
	if !d.end() {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	return out, nil
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
	fd, err := openRetry(mp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return []string{fmt.Sprintf("open %s: %v", mp, err)}
	}
	defer unix.Close(fd)
	left := cleanTemps(fd, temps)
	if len(left) == 0 {
		os.Remove(refreshJournalPath(st.Backing))
	}
	return left
}
