//go:build linux

package linux

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A record in the adding state (device -1) was written before hot_add.
// The kernel's answer is meant to reach the record's device slot in one
// step, but a kill can still come between the kernel adding the device and
// the answer's write (sendfile stops at a fatal signal between its read and
// its write; a kernel that cannot splice from sysfs reads, then writes). So
// the record also lists the zram devices there were before it (each by
// number and sysfs inode): a device that is not among them, was there when
// the record's process was first seen gone (the after list, written into
// the record then), is still unconfigured (disksize 0, not mounted, not
// swap) and is named by no other record, is the one that Create could
// have made; of several, the first made (the lowest inode). Devices in
// either list with the same inode are never touched: zram0 of the module,
// a swap device, anyone's device made before the record.

// zramSettle is how long a device the killed Create could have made must
// stay unconfigured before it is taken as that Create's: a program setting
// up a device of its own sizes it within milliseconds of adding it.
const zramSettle = 150 * time.Millisecond

// maxSeen bounds the devices a record lists (the kernel allows far fewer
// in practice); a record that would list more notes the first ones only.
const maxSeen = 256

// zramSeen is one zram device as a record saw it: its number and the inode
// of its sysfs folder (a device removed and added again under the same
// number gets another).
type zramSeen struct {
	n   int
	ino uint64
}

// zramList lists the zram devices there are now.
func (e *Engine) zramList() []zramSeen {
	ents, err := os.ReadDir(filepath.Join(e.sys, "block"))
	if err != nil {
		return nil
	}
	var out []zramSeen
	for _, de := range ents {
		n := zramDevice("/dev/" + de.Name())
		if n < 0 {
			continue
		}
		if ino := e.deviceIno(n); ino != 0 && len(out) < maxSeen {
			out = append(out, zramSeen{n: n, ino: ino})
		}
	}
	return out
}

// formatSeen writes a device list: "-" for none, else "N:INO,N:INO".
func formatSeen(list []zramSeen) string {
	if len(list) == 0 {
		return "-"
	}
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = strconv.Itoa(s.n) + ":" + strconv.FormatUint(s.ino, 10)
	}
	return strings.Join(parts, ",")
}

// parseSeen reads what formatSeen wrote.
func parseSeen(text string) ([]zramSeen, bool) {
	if text == "-" {
		return []zramSeen{}, true
	}
	var out []zramSeen
	for _, part := range strings.Split(text, ",") {
		a, b, ok := strings.Cut(part, ":")
		n, err1 := strconv.Atoi(a)
		ino, err2 := strconv.ParseUint(b, 10, 64)
		if !ok || err1 != nil || err2 != nil || n < 0 || ino == 0 || len(out) == maxSeen {
			return nil, false
		}
		out = append(out, zramSeen{n: n, ino: ino})
	}
	return out, true
}

// seenIn reports whether list holds s (same number and inode).
func seenIn(list []zramSeen, s zramSeen) bool {
	return slices.Contains(list, s)
}

// noteBefore writes r (a record before hot_add) with the devices there are
// now, and again while a device appears meanwhile, so no device that was
// there before the record is missing from it.
func (e *Engine) noteBefore(r *zramRecord) error {
	r.adding, r.before = true, e.zramList()
	for try := 0; ; try++ {
		if err := r.write(); err != nil {
			return err
		}
		var added []zramSeen
		for _, s := range e.zramList() {
			if !seenIn(r.before, s) {
				added = append(added, s)
			}
		}
		if len(added) == 0 || try == 3 || len(r.before)+len(added) > maxSeen {
			return nil
		}
		r.before = append(r.before, added...)
	}
}

// adoptAdding decides the records in the adding state whose Create is gone
// (see the top of this file). A record whose device is found gets it (dev
// and ino set) and is returned in stray; one whose device cannot have been
// made (or whose Create's other record names one) is finished. Records
// whose after list is noted only now wait, once for all of them,
// zramSettle before their devices are judged. While a Create of another
// process is adding a device, none is judged (kept for the next time).
func (e *Engine) adoptAdding(adding, others []zramRecord, isFree func(zramRecord) bool) (stray, finished []zramRecord) {
	if len(adding) == 0 {
		return nil, nil
	}
	var named []zramSeen
	// A Create's record and the temporary copy a kill left of it are one
	// Create: once one of them names or takes a device, the others take none.
	type creator struct {
		pid   int
		start uint64
	}
	done := map[creator]bool{}
	for _, o := range others {
		if o.dev < 0 && o.adding && e.running(o) {
			return nil, nil // its device may be any new one
		}
		if o.dev >= 0 {
			named = append(named, zramSeen{n: o.dev, ino: o.ino})
			done[creator{o.pid, o.start}] = true
		}
	}
	now := e.zramList()
	noted := false
	for i := range adding {
		if !adding[i].afterSet {
			adding[i].after, adding[i].afterSet, noted = now, true, true
			adding[i].write() // best effort: else the next pass notes it again
		}
	}
	if noted {
		time.Sleep(zramSettle)
	}
	taken := map[int]bool{}
	for _, r := range adding {
		if done[creator{r.pid, r.start}] {
			finished = append(finished, r)
			continue
		}
		var cands []zramSeen
		for _, s := range r.after {
			if !seenIn(r.before, s) && !taken[s.n] && e.deviceIno(s.n) == s.ino && !namedBy(named, s) {
				cands = append(cands, s)
			}
		}
		slices.SortFunc(cands, func(a, b zramSeen) int { return cmp.Compare(a.ino, b.ino) })
		found := false
		for _, s := range cands {
			c := r
			c.dev, c.ino, c.size = s.n, s.ino, 0 // size 0: unconfigured only
			if isFree(c) {
				taken[s.n], found = true, true
				done[creator{r.pid, r.start}] = true
				stray = append(stray, c)
				break
			}
		}
		if !found {
			finished = append(finished, r)
		}
	}
	return stray, finished
}

// namedBy reports whether another record names device s (by its inode
// when the record noted one).
func namedBy(named []zramSeen, s zramSeen) bool {
	for _, o := range named {
		if o.n == s.n && (o.ino == 0 || o.ino == s.ino) {
			return true
		}
	}
	return false
}
