package foldersync

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/internal/record"
)

// A write-back writes each new version of a path to a temporary name in
// the path's own folder, then renames it over the path. The temporary
// names have one form, tempPrefix and 16 hex digits
// (".rambar-writeback-0123456789abcdef"), and before the first is made
// they are listed, with their folders, in the store's mirror/pending
// (durably): a write-back killed halfway leaves at worst such names, and
// the next write-back of the disk removes every one the list names (a
// folder made under such a name, with what it holds) before it starts.
// Nothing else in the folder is ever removed by that clean-up.

const (
	TempPrefix   = ".rambar-writeback-"
	journalName  = "pending"
	journalMagic = "RAMBAR-MIRROR-PENDING-1\n"
)

// tempName is a new temporary name.
func tempName() string { return TempPrefix + tree.RandomID()[:16] }

// IsTempName: name has tempName's form.
func IsTempName(name string) bool {
	hex, ok := strings.CutPrefix(name, TempPrefix)
	return ok && len(hex) == 16 && strings.Trim(hex, "0123456789abcdef") == ""
}

// TempAt is a temporary name in a folder of the mirror folder.
type TempAt struct{ Dir, Name string }

// TempList is a list of temporary names in the store: the write-back's
// (names in the mirror folder, mirror/pending) or a refresh's (names on
// the disk, mirror/refresh-pending, refreshjournal.go). Each is written
// durably before the first name is made and read as untrusted input.
type TempList struct {
	File, Magic string
	What        string            // whose names, for errors
	Valid       func(string) bool // a name of the list's form
}

// WriteBackTemps is the write-back's list of temporary names.
var WriteBackTemps = TempList{File: journalName, Magic: journalMagic, What: "the write-back's", Valid: IsTempName}

// Path is where the list is kept in the store storeDir.
func (l TempList) Path(storeDir string) string { return filepath.Join(recordDir(storeDir), l.File) }

// Write lists temps in the store, durably, before they are made.
func (l TempList) Write(storeDir string, temps []TempAt) error {
	e := &snapstore.Encoder{B: append([]byte(nil), l.Magic...)}
	e.Uv(uint64(len(temps)))
	for _, t := range temps {
		e.Str(t.Dir)
		e.Str(t.Name)
	}
	putFixed32(e, crc32.ChecksumIEEE(e.B))
	if err := record.Write(l.Path(storeDir), e.B, true); err != nil {
		return tree.NoSpace(fmt.Errorf("note %s temporary names: %w", l.What, err))
	}
	return nil
}

// Read reads the list an interrupted write-back or refresh left; none
// when there is none. A damaged list is refused: nothing is removed by it.
func (l TempList) Read(storeDir string) ([]TempAt, error) {
	name := l.Path(storeDir)
	b, err := record.ReadFile(name, snapstore.MaxFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !crcOK(b) {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	d := &snapstore.Decoder{B: b[:len(b)-4]}
	d.Magic(l.Magic)
	n := d.Count(2)
	out := make([]TempAt, 0, n)
	for i := 0; i < n && !d.Bad; i++ {
		t := TempAt{Dir: d.Str(), Name: d.Str()}
		if snapstore.CheckPath(t.Dir) != nil || !l.Valid(t.Name) {
			return nil, fmt.Errorf("%s is damaged", name)
		}
		out = append(out, t)
	}
	if !d.End() {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	return out, nil
}

func journalPath(storeDir string) string { return WriteBackTemps.Path(storeDir) }

// WriteJournal lists the write-back's temps in the store before they are made.
func WriteJournal(storeDir string, temps []TempAt) error {
	return WriteBackTemps.Write(storeDir, temps)
}

// readJournal reads the list an interrupted write-back left.
func readJournal(storeDir string) ([]TempAt, error) { return WriteBackTemps.Read(storeDir) }

// HasJournal: an interrupted write-back left temporary names to remove.
func HasJournal(storeDir string) bool {
	_, err := os.Lstat(journalPath(storeDir))
	return err == nil
}

// RemoveJournal removes the write-back's list of temporary names.
func RemoveJournal(storeDir string) { os.Remove(journalPath(storeDir)) }

// CleanTemps removes the temporary names an interrupted write-back of the
// folder rootfd listed (what is there under them is RAMBar's: a file never
// renamed into place, or what a rename exchanged out), never following a
// symlink and never leaving the folder. It returns what it could not
// remove.
func CleanTemps(rootfd int, temps []TempAt) []string {
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
		if err := RemoveAllAt(dirfd, t.Name); err != nil && !errors.Is(err, unix.ENOENT) {
			left = append(left, fmt.Sprintf("%s (%v)", tree.JoinRel(t.Dir, t.Name), err))
		}
		if dirfd != rootfd {
			unix.Close(dirfd)
		}
	}
	return left
}

// RemoveAllAt removes name under dirfd and everything in it, never
// following a symlink and never entering, emptying or removing a mount
// point (tree.RemoveAt: a *tree.MountError names one met). A name already
// gone is no error.
func RemoveAllAt(dirfd int, name string) error { return tree.RemoveAt(dirfd, name) }
