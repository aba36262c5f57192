package localapi

import (
	"os"
	"strconv"
)

// sockAddr is the address that reaches name in the open folder dir:
// through /proc/self/fd, so the folder is the one opened (never a link
// put in its place since) and any path length fits sun_path.
func sockAddr(dir *os.File, name string) (string, error) {
	return "/proc/self/fd/" + strconv.Itoa(int(dir.Fd())) + "/" + name, nil
}
