//go:build unix && !linux

package localapi

import (
	"fmt"
	"os"
	"path/filepath"
)

// maxAddr is sun_path's size less its terminating NUL (macOS, the BSDs).
const maxAddr = 103

// sockAddr is the socket's path in the folder dir, checked and opened
// already; a path longer than sun_path takes is refused.
func sockAddr(dir *os.File, name string) (string, error) {
	p := filepath.Join(dir.Name(), name)
	if len(p) > maxAddr {
		return "", fmt.Errorf("agent socket %s: the path is longer than the %d bytes a Unix socket's may be", p, maxAddr)
	}
	return p, nil
}
