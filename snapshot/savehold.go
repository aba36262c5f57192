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
	jobUnstable                  // changed during each try of its copy (for steadyFor)
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

// A file is copied as it is and checked: a version that existed is one
// with the same identity before and after its copy (and, watched, the same
// contents). A write(2) changes a file's times as it begins, not as its
// bytes land, and two writes in one tick of the kernel's clock may leave
// the same times, so the identity before is read only after the clock has
// passed the file's ctime, and the copy starts only once any write in
// progress has landed (tree.WriteBarrier; where there is none, macOS, once
// the file has been left alone for quietFor). A file changed less than
// recentWindow before its copy is leased first where the kernel allows
// (tree.ReadLease: granted, no process can open it for writing while it is
// copied). A file that a program writes without pause (a log, a database
// committing every few milliseconds) is copied again, at once, between its
// writes, for up to steadyFor: a few MB copy in a millisecond, between two
// writes 10 ms apart. One never still for a whole copy keeps its previous
// version, and is named. A lease makes a program that opens the file for
// writing wait until the copy is done, so files past leaseMax (their copy
// takes a while) are not leased.
const (
	recentWindow = time.Second
	leaseMax     = 64 << 20
	steadyFor    = 400 * time.Millisecond
	// quietBase and quietRate make quietFor: where no write barrier
	// exists, a write of n bytes begun quietFor(n) ago has landed.
	quietBase = 5 * time.Millisecond
	quietRate = 1 << 30 // bytes a second
)

// quietFor is how long a file of size bytes must have been left alone
// before its copy where the kernel has no write barrier.
func quietFor(size int64) time.Duration {
	return quietBase + time.Duration(size)*time.Second/quietRate
}

// settledBy reports whether a file of identity id, as read after the
// change clock read clock, is settled: any later write changes its
// identity, and it was left alone for quiet before. Its ctime must be
// older than clock less quiet; a ctime of whole seconds (HFS+ keeps no
// more) must be a second older. A ctime ahead of the clock (it stepped
// back) settles nothing until the clock is past it; wait is how long to
// wait before asking again.
func settledBy(id tree.Ident, clock int64, quiet time.Duration) (ok bool, wait time.Duration) {
	need := id.CTime + max(int64(quiet), 1)
	if id.CTime%int64(time.Second) == 0 {
		need = max(need, id.CTime+int64(time.Second))
	}
	if clock >= need {
		return true, 0
	}
	return false, min(time.Duration(need-clock), 50*time.Millisecond)
}

// copyQuiet is how long a file of size bytes must have been left alone
// before a copy: nothing more than its ctime in an earlier tick of the
// change clock where a write barrier exists, else quietFor.
func copyQuiet(size int64) time.Duration {
	if tree.HasWriteBarrier {
		return 0
	}
	return quietFor(size)
}

// held copies job k's file (open as in, of identity id) with copy, again
// while it changes (for up to steadyFor; redo puts the output back first),
// and sets the job's state: whether the version kept is the scanned one,
// held still.
func (c *copier) held(k int, in int, id tree.Ident, copy func() error, redo func() error) error {
	j, rel := &c.jobs[k], c.path(c.jobs[k].ref)
	want, watched := c.chk.w.sum(rel)
	leased := false
	if time.Duration(tree.ChangeClock()-id.CTime) < recentWindow && id.Size <= leaseMax && !watched {
		leased, _ = tree.ReadLease(in) // refused for a file open for writing: copied between its writes
	}
	copied, deadline := false, time.Now().Add(steadyFor)
	for try := 1; ; try++ {
		clock := tree.ChangeClock()
		var st unix.Stat_t
		if err := unix.Fstat(in, &st); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFREG {
			j.state = jobGone
			return nil
		}
		id = tree.IdentOf(&st)
		if ok, wait := settledBy(id, clock, copyQuiet(id.Size)); !ok && !leased {
			if time.Now().Add(wait).After(deadline) {
				j.state = jobUnstable
				return nil
			}
			time.Sleep(wait)
			continue
		}
		tree.WriteBarrier(in)
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
		case leased || try >= copyTries && time.Now().After(deadline):
			j.state = jobUnstable
			return nil
		}
	}
}
