//go:build linux

package tree

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// MountPoints lists the mount points of this process's mount namespace
// (/proc/self/mountinfo).
func MountPoints() ([]string, error) {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	return parseMountinfo(string(b)), nil
}

// parseMountinfo returns the mount point field of each line, unescaped
// (the kernel writes space, tab, newline and backslash as \ooo).
func parseMountinfo(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 {
			continue
		}
		out = append(out, UnescapeOctal(f[4]))
	}
	return out
}

// UnescapeOctal undoes the kernel's escapes in a field of mountinfo (a
// space is \040).
func UnescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
