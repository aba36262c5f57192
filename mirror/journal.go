package mirror

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"rambar/snapstore"
	"rambar/tree"
	"strings"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
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
	tempPrefix   = ".rambar-writeback-"
	journalName  = "pending"
	journalMagic = "RAMBAR-MIRROR-PENDING-1\n"
)

// tempName is a new temporary name.
func tempName() string { return tempPrefix + tree.RandomID()[:16] }

// isTempName: name has tempName's form.
func isTempName(name string) bool {
	hex, ok := strings.CutPrefix(name, tempPrefix)
	return ok && len(hex) == 16 && strings.Trim(hex, "0123456789abcdef") == ""
}

// tempAt is a temporary name in a folder of the mirror folder.
type tempAt struct{ dir, name string }

// tempList is a list of temporary names in the store: the write-back's
// (names in the mirror folder, mirror/pending) or a refresh's (names on
// the disk, mirror/refresh-pending, refreshjournal.go). Each is written
// durably before the first name is made and read as untrusted input.
type tempList struct {
	file, magic string
	what        string            // whose names, for errors
	valid       func(string) bool // a name of the list's form
}

var writeBackTemps = tempList{file: journalName, magic: journalMagic, what: "the write-back's", valid: isTempName}

func (l tempList) path(storeDir string) string { return filepath.Join(recordDir(storeDir), l.file) }

// write lists temps in the store, durably, before they are made.
func (l tempList) write(storeDir string, temps []tempAt) error {
	e := &snapstore.Encoder{B: append([]byte(nil), l.magic...)}
	e.Uv(uint64(len(temps)))
	for _, t := range temps {
		e.Str(t.dir)
		e.Str(t.name)
	}
	putFixed32(e, crc32.ChecksumIEEE(e.B))
	if err := os.MkdirAll(recordDir(storeDir), 0o700); err != nil {
		return tree.NoSpace(fmt.Errorf("make %s: %w", recordDir(storeDir), err))
	}
	if err := atomicfile.WriteFile(l.path(storeDir), e.B, 0o600); err != nil {
		return tree.NoSpace(fmt.Errorf("note %s temporary names: %w", l.what, err))
	}
	return nil
}

// read reads the list an interrupted write-back or refresh left; none
// when there is none. A damaged list is refused: nothing is removed by it.
func (l tempList) read(storeDir string) ([]tempAt, error) {
	name := l.path(storeDir)
	b, err := snapstore.ReadBounded(name, snapstore.MaxFile)
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
	d.Magic(l.magic)
	n := d.Count(2)
	out := make([]tempAt, 0, n)
	for i := 0; i < n && !d.Bad; i++ {
		t := tempAt{dir: d.Str(), name: d.Str()}
		if snapstore.CheckPath(t.dir) != nil || !l.valid(t.name) {
			return nil, fmt.Errorf("%s is damaged", name)
		}
		out = append(out, t)
	}
	if !d.End() {
		return nil, fmt.Errorf("%s is damaged", name)
	}
	return out, nil
}

func journalPath(storeDir string) string { return writeBackTemps.path(storeDir) }

// writeJournal lists the write-back's temps in the store before they are made.
func writeJournal(storeDir string, temps []tempAt) error {
	return writeBackTemps.write(storeDir, temps)
}

// readJournal reads the list an interrupted write-back left.
func readJournal(storeDir string) ([]tempAt, error) { return writeBackTemps.read(storeDir) }

// hasJournal: an interrupted write-back left temporary names to remove.
func hasJournal(storeDir string) bool {
	_, err := os.Lstat(journalPath(storeDir))
	return err == nil
}

func removeJournal(storeDir string) { os.Remove(journalPath(storeDir)) }

// cleanTemps removes the temporary names an interrupted write-back of the
// folder rootfd listed (what is there under them is RAMBar's: a file never
// renamed into place, or what a rename exchanged out), never following a
// symlink and never leaving the folder. It returns what it could not
// remove.
func cleanTemps(rootfd int, temps []tempAt) []string {
	var left []string
	for _, t := range temps {
		dirfd := rootfd
		if t.dir != "." {
			fd, err := tree.OpenBeneath(rootfd, t.dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			if err != nil {
				continue // its folder is gone, and the name with it
			}
			dirfd = fd
		}
		if err := removeAllAt(dirfd, t.name); err != nil && !errors.Is(err, unix.ENOENT) {
			left = append(left, fmt.Sprintf("%s (%v)", joinRel(t.dir, t.name), err))
		}
		if dirfd != rootfd {
			unix.Close(dirfd)
		}
	}
	return left
}

// removeAllAt removes name under dirfd and everything in it, never
// following a symlink.
func removeAllAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return err
	}
	sub, oerr := openDirAt(dirfd, name)
	if oerr != nil {
		return err
	}
	names, _ := readNames(sub)
	for _, n := range names {
		removeAllAt(sub, n)
	}
	unix.Close(sub)
	return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
}
