//go:build linux

package changefeed

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// deletedSuffix ends the link of a descriptor whose file was removed.
const deletedSuffix = " (deleted)"

// openWriters returns the paths under roots of the files some process has
// open for writing, as /proc tells: each process's descriptors (fd/N
// links to the file's path) with their open flags (fdinfo/N). A process
// whose descriptors cannot be read (another user's, or one that just
// ended) is passed over; a file removed since it was opened is on the
// disk by no name, and left out. Only /proc itself unreadable is an
// error.
func openWriters(roots []string) ([]string, error) {
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("read /proc: %w", err)
	}
	var found []string
	for _, e := range procs {
		if pid := e.Name(); pid[0] >= '1' && pid[0] <= '9' {
			found = procWriters("/proc/"+pid, roots, found)
		}
	}
	return found, nil
}

// procWriters appends to found the paths under roots that the process
// whose /proc folder is dir has open for writing.
func procWriters(dir string, roots []string, found []string) []string {
	fds, err := os.ReadDir(dir + "/fd")
	if err != nil {
		return found
	}
	for _, fd := range fds {
		link := dir + "/fd/" + fd.Name()
		target, err := os.Readlink(link)
		if err != nil {
			continue
		}
		if _, _, ok := relUnder(roots, strings.TrimSuffix(target, deletedSuffix)); !ok {
			continue
		}
		b, err := os.ReadFile(dir + "/fdinfo/" + fd.Name())
		if err != nil {
			continue
		}
		if flags, err := fdinfoFlags(b); err != nil || !writableFlags(flags) {
			continue
		}
		if strings.HasSuffix(target, deletedSuffix) {
			// Removed, or a name that ends so: the file's links tell.
			var st unix.Stat_t
			if unix.Stat(link, &st) != nil || st.Nlink == 0 {
				continue
			}
		}
		found = append(found, target)
	}
	return found
}

// modified holds a write or truncate of name in folder (IN_MODIFY, in the
// test mode with FSEvents' semantics) until the next look.
func (w *writers) modified(folder, name string, at time.Time) {
	w.heldMu.Lock()
	defer w.heldMu.Unlock()
	if w.held == nil {
		w.held = map[string]heldChange{}
	}
	w.held[folder+"/"+name] = heldChange{folder, name, at}
}
