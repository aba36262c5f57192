package disks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"rambar/internal/record"
)

// exposedNote is the file in the data folder that remembers the last
// warning given about it, so each is given once.
const exposedNote = ".readable-by-others"

// ExposedData says why other users of this computer can read what RAMBar
// keeps in the data folder dir, "" when they cannot: the folder is on a
// file system that keeps no Unix permissions (exFAT, FAT, NTFS...: every
// file there is open to everyone the mount allows), or its own mode lets
// others in. A folder that is not there yet says nothing.
func ExposedData(dir string) string {
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm()&0o077 == 0 {
		return ""
	}
	if !keepsPermissions(dir) {
		return fmt.Sprintf("%s is on %s, which keeps no Unix permissions: other users of this computer can read the contents RAMBar saves there (mode %04o); "+
			"keep the data folder on a disk with permissions (APFS, ext4), or move it with RAMBAR_HOME", dir, fsName(dir), st.Mode().Perm())
	}
	return fmt.Sprintf("%s is open to other users (mode %04o): they can read the contents RAMBar saves there; 'chmod 700 %s' makes it private",
		dir, st.Mode().Perm(), quoteArg(dir))
}

// keepsPermissions reports whether files made in dir keep the mode they
// are given: a probe file made 0600 is checked, then removed.
func keepsPermissions(dir string) bool {
	f, err := os.CreateTemp(dir, ".permissions-*")
	if err != nil {
		return true // nothing can be told: no claim
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if f.Chmod(0o600) != nil {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode().Perm() == 0o600
}

// warnExposed gives s.Warn the data folder's exposure once: looked at
// once in s's life, and a warning already given (the same words, in any
// process) is not given again.
func (s *Service) warnExposed() {
	if s.Warn == nil || s.Paths.Data == "" || s.dataChecked.Load() {
		return
	}
	if _, err := os.Stat(s.Paths.Data); err != nil || s.dataChecked.Swap(true) {
		return // not made yet: looked at once it is
	}
	why := ExposedData(s.Paths.Data)
	note := filepath.Join(s.Paths.Data, exposedNote)
	if why == "" {
		os.Remove(note) // put right, if it was given: warn again if it comes back
		return
	}
	// Read and written as a record: bounded, never through a link planted
	// in its place (as root, the data folder may be another user's).
	if b, err := record.ReadFile(note, 64<<10); err == nil && strings.TrimSpace(string(b)) == why {
		return
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ELOOP) {
		return // cannot tell whether it was given: say nothing rather than every time
	} // a link (ELOOP) is no note: the write replaces it
	s.Warn(why)
	record.Write(note, []byte(why+"\n"), false)
}
