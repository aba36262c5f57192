//go:build darwin

package diskid

import (
	"fmt"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// bootID is this boot's session UUID (sysctl kern.bootsessionuuid).
var bootID = sync.OnceValue(func() string {
	s, err := unix.Sysctl("kern.bootsessionuuid")
	if err != nil || s == "" {
		return "unknown"
	}
	return strings.ReplaceAll(s, ":", "")
})

// of: darwin:BOOT:DEV:INO:born=BIRTHTIME (every macOS file system RAMBar
// makes keeps birth times).
func of(dir string) (string, error) {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return "", fmt.Errorf("lstat: %w", err)
	}
	return fmt.Sprintf("darwin:%s:%d:%d:born=%d.%09d", bootID(), st.Dev, st.Ino,
		st.Btim.Sec, st.Btim.Nsec), nil
}
