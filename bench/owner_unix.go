//go:build unix

package bench

import (
	"os"
	"syscall"
)

// ownedBy reports whether uid owns dir (a disk's top folder).
func ownedBy(dir string, uid int) bool {
	st, err := os.Stat(dir)
	if err != nil {
		return false
	}
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == uid
}

// sameDevice reports whether a and b are on one file system.
func sameDevice(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return false
	}
	x, ok1 := sa.Sys().(*syscall.Stat_t)
	y, ok2 := sb.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && x.Dev == y.Dev
}
