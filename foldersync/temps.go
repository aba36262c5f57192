package foldersync

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rambar/snapstore"
	"rambar/syncrec"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/internal/record"
)

// Every writer of Mirror paths (the write-back in the folder, the refresh
// and the load's copy hook on the disk) makes a new version under a
// temporary name in the path's own folder, then renames it over the path.
// The names have one form, TempPrefix and 16 hex digits
// (".rambar-tmp-0123456789abcdef"), and before the first is made they are
// listed, with their folders, durably in the store: mirror/pending for
// the folder's, mirror/refresh-pending for the disk's. A run killed
// halfway leaves at worst such names; the next run on that side removes
// every one its list names (a folder made under one, with what it holds)
// before it starts, and nothing else. Neither the load nor the refresh
// ever takes such a name from the folder. The forms earlier versions made
// (".rambar-writeback-…", ".rambar-refresh-…") count as this one.

// TempPrefix begins every temporary name.
const TempPrefix = ".rambar-tmp-"

var tempPrefixes = []string{TempPrefix, ".rambar-writeback-", ".rambar-refresh-"}

func tempName() string { return TempPrefix + tree.RandomID()[:16] }

// isTempName: name has a temporary name's form.
func isTempName(name string) bool {
	for _, p := range tempPrefixes {
		if hex, ok := strings.CutPrefix(name, p); ok {
			return isHex16(hex)
		}
	}
	return false
}

// isHex16: s is 16 lowercase hex digits (a random ID's first 16).
func isHex16(s string) bool { return len(s) == 16 && strings.Trim(s, "0123456789abcdef") == "" }

// TempAt is a temporary name in a folder (relative to the side's top).
type TempAt struct{ Dir, Name string }

// tempList is a side's list of temporary names in the store, written
// durably before the first is made and read as untrusted input.
type tempList struct{ file, magic string }

var (
	folderTemps = tempList{"pending", "RAMBAR-MIRROR-PENDING-1\n"}
	diskTemps   = tempList{"refresh-pending", "RAMBAR-REFRESH-PENDING-1\n"}
)

func (l tempList) path(storeDir string) string { return filepath.Join(syncrec.Dir(storeDir), l.file) }

// TempLists are where the stores' lists of temporary names are (the
// folder's, then the disk's) in the store storeDir, for Leftovers and
// doctor: a list there is a write-back or refresh stopped half way.
func TempLists(storeDir string) (folder, disk string) {
	return folderTemps.path(storeDir), diskTemps.path(storeDir)
}

func (l tempList) write(storeDir string, temps []TempAt) error {
	e := &snapstore.Encoder{B: append([]byte(nil), l.magic...)}
	e.Uv(uint64(len(temps)))
	for _, t := range temps {
		e.Str(t.Dir)
		e.Str(t.Name)
	}
	e.PutCRC(0)
	if err := record.Write(l.path(storeDir), e.B, true); err != nil {
		return tree.NoSpace(fmt.Errorf("note the temporary names: %w", err))
	}
	return nil
}

// read reads the list an interrupted run left; none when there is none.
// A damaged list is refused: nothing is removed by it.
func (l tempList) read(storeDir string) ([]TempAt, error) {
	name := l.path(storeDir)
	b, err := record.ReadFile(name, snapstore.MaxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !snapstore.CRCOK(b) {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	d := &snapstore.Decoder{B: b[:len(b)-4]}
	d.Magic(l.magic)
	n := d.Count(2)
	out := make([]TempAt, 0, n)
	for i := 0; i < n && !d.Bad; i++ {
		t := TempAt{Dir: d.Str(), Name: d.Str()}
		if snapstore.CheckPath(t.Dir) != nil || !isTempName(t.Name) {
			return nil, fmt.Errorf("%s is damaged", name)
		}
		out = append(out, t)
	}
	if !d.End() {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	return out, nil
}

func (l tempList) remove(storeDir string) { os.Remove(l.path(storeDir)) }

// clean removes what an interrupted run left under the temporary names
// its list names, in the side rootfd, then the list; it returns what it
// could not remove (the list stays then).
func (l tempList) clean(storeDir string, rootfd int) ([]string, error) {
	temps, err := l.read(storeDir)
	if err != nil {
		return nil, err
	}
	left := cleanTemps(rootfd, temps)
	if len(left) == 0 {
		l.remove(storeDir)
	}
	return left, nil
}

// WriteJournal lists the write-back's temporary names in the store.
func WriteJournal(storeDir string, temps []TempAt) error { return folderTemps.write(storeDir, temps) }

// HasJournal: an interrupted write-back left temporary names to remove.
func HasJournal(storeDir string) bool {
	_, err := os.Lstat(folderTemps.path(storeDir))
	return err == nil
}

// RemoveJournal removes the write-back's list of temporary names.
func RemoveJournal(storeDir string) { folderTemps.remove(storeDir) }

// CleanDiskTemps removes what an interrupted refresh (or load) of a disk
// left under its temporary names on the disk mounted at mp (never
// following a symlink, never leaving the disk), then its list; it returns
// what it could not remove.
func CleanDiskTemps(storeDir, mp string) []string {
	if _, err := os.Lstat(diskTemps.path(storeDir)); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	fd, err := tree.OpenRetry(mp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return []string{fmt.Sprintf("open %s: %v", mp, err)}
	}
	defer unix.Close(fd)
	left, err := diskTemps.clean(storeDir, fd)
	if err != nil {
		return []string{err.Error()}
	}
	return left
}

// cleanTemps removes temps in the side rootfd (what is there under them
// is RAMBar's: a version never renamed into place, or what a rename
// exchanged out), never following a symlink, never leaving the side and
// never entering a mount point. It returns what it could not remove.
func cleanTemps(rootfd int, temps []TempAt) []string {
	var left []string
	for _, t := range temps {
		dirfd := rootfd
		if t.Dir != "." {
			fd, err := tree.OpenBeneath(rootfd, t.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				continue // its folder is gone, and the name with it
			}
			dirfd = fd
		}
		if err := tree.RemoveAt(dirfd, t.Name); err != nil && !errors.Is(err, unix.ENOENT) {
			left = append(left, fmt.Sprintf("%s (%v)", tree.JoinRel(t.Dir, t.Name), err))
		}
		if dirfd != rootfd {
			unix.Close(dirfd)
		}
	}
	return left
}
