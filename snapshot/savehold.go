package snapshot

import (
	"sync"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A save stores a file only as a version that existed: copier.held copies
// it and tells whether it held still meanwhile.

// How a job's copy went. A save stores a file only as a version that
// existed: one that did not change from its scan to the end of its copy
// (its identity, and for a watched file its contents, the same before and
// after), copied again up to copyTries times while it changes.
const (
	jobCopied   uint8 = iota + 1 // as scanned, held still while copied
	jobCached                    // copied by an earlier round of the save, unchanged since
	jobGone                      // gone, or no longer a regular file
	jobMoved                     // changed after its scan (the version copied held still: copyCheck.moved)
	jobUnstable                  // changed during each try of its copy
	jobBusy                      // written within recentWindow by a process that has it open for writing
)

// copyTries is how many times a file that changes while it is copied is
// copied before the round gives up on it.
const copyTries = 3

// ok reports whether j holds a version of its file as it was scanned.
func (j *copyJob) ok() bool { return j.state == jobCopied || j.state == jobCached }

// obj is where job j's bytes are (nil unless j holds some).
func (j *copyJob) obj(id string) tree.ObjName {
	return tree.ObjName{Save: id, Num: j.num, Off: j.off, Packed: j.packed}
}

// copyCheck is what a copy checks each file against.
type copyCheck struct {
	// scanned is job k's path as the scan found it.
	scanned func(k int) *tree.Scanned
	// w compares watched files by content (nil: none).
	w *watch

	mu sync.Mutex
	// moved is, per job copied in the state jobMoved, the identity of
	// the version it holds (a later round may take it).
	moved map[int]tree.Ident
}

// noteMoved records job k's copy of the version id.
func (c *copyCheck) noteMoved(k int, id tree.Ident) {
	c.mu.Lock()
	if c.moved == nil {
		c.moved = map[int]tree.Ident{}
	}
	c.moved[k] = id
	c.mu.Unlock()
}

// A write(2) changes a file's times as it begins, not as its bytes land,
// and a program rewriting a file in parts leaves it a mix of its old and
// new contents between them: a copy may find the same identity before
// and after and still hold neither version. So a file changed less than
// recentWindow before its copy is leased first (readLease: granted, no
// process can be writing it while it is copied). One that a process has
// open for writing is busy: its copy is not taken as a version that
// existed (the save keeps its previous version); but a file mapped shared
// and writable, which always has a writer, is compared by its contents
// before and after its copy instead (watch.go). Where leases cannot tell
// (another user's file; macOS), a file is copied once it has been left
// alone for quiet. A lease makes a program that opens the file for
// writing wait until the copy is done, so files past leaseMax (their copy
// takes a while) are not leased either.
const (
	recentWindow = time.Second
	quiet        = 50 * time.Millisecond
	leaseMax     = 64 << 20
)

// quietLeft is how long until a file of identity id (changed at its ctime)
// has been left alone for quiet, as of now; none when its ctime is ahead
// of the clock (it stepped back: nothing can be told).
func quietLeft(id tree.Ident, now time.Time) time.Duration {
	since := time.Duration(now.UnixNano() - id.CTime)
	if since < -time.Second {
		return 0
	}
	return max(quiet-since, 0)
}

// held copies job k's file (open as in, of identity id) with copy, again
// while it changes (up to copyTries times; redo puts the output back first),
// and sets the job's state: whether the version kept is the scanned one,
// held still.
func (c *copier) held(k int, in int, id tree.Ident, copy func() error, redo func() error) error {
	j, rel := &c.jobs[k], c.path(c.jobs[k].ref)
	want, watched := c.chk.w.sum(rel)
	leased, writer := false, false
	if time.Duration(time.Now().UnixNano()-id.CTime) < recentWindow && id.Size <= leaseMax {
		leased, writer = tree.ReadLease(in)
	}
	if writer && !watched { // a watched file is told held still by its contents
		j.state = jobBusy
		return nil
	}
	copied := false
	for try := 1; ; try++ {
		if d := quietLeft(id, time.Now()); !leased && d > 0 {
			time.Sleep(d)
			var st unix.Stat_t
			if err := unix.Fstat(in, &st); err != nil {
				return err
			}
			if now := tree.IdentOf(&st); now != id {
				if try == copyTries {
					j.state = jobUnstable
					return nil
				}
				id = now
				continue
			}
		}
		if copied {
			if _, err := unix.Seek(in, 0, unix.SEEK_SET); err != nil {
				return err
			}
			if err := redo(); err != nil {
				return err
			}
		}
		if err := copy(); err != nil {
			return err
		}
		copied = true
		var st unix.Stat_t
		if err := unix.Fstat(in, &st); err != nil {
			return err
		}
		after := tree.IdentOf(&st)
		still := after == id
		if still && watched {
			sum, err := sumFD(in)
			if err != nil {
				return err
			}
			still, want = sum == want, sum
		}
		switch {
		case still && id == c.chk.scanned(k).Id:
			j.state = jobCopied
			if watched {
				c.chk.w.set(rel, want)
			}
			return nil
		case still:
			j.state = jobMoved
			c.chk.noteMoved(k, id)
			return nil
		case try == copyTries:
			j.state = jobUnstable
			return nil
		}
		id = after
	}
}
