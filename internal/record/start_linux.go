package record

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// StartTime is when process pid started (clock ticks since boot: field 22
// of /proc/PID/stat); 0 when it is gone or cannot be read.
func StartTime(pid int) uint64 { return StartTimeIn("/proc", pid) }

// StartTimeIn is StartTime read from the proc file system mounted at proc.
func StartTimeIn(proc string, pid int) uint64 {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseUint(f[19], 10, 64)
	return n
}
