package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// copyJob is one file a save copies into the store: which (ref: an item
// of the scan, or an entry of a delta), its size as scanned and, once
// copied, the object its bytes went to (a pack's from off) and how many
// were kept, and how the copy went (state). A save holds one per file it
// copies, 32 bytes, not a whole entry.
type copyJob struct {
	size   int64
	off    int64 // packed: where in pack num its bytes start
	ref    int32
	num    uint32
	sparse bool  // seen by the scan to hold fewer blocks than bytes
	packed bool  // in pack num
	state  uint8 // jobCopied, ...: 0 until copied
}

// extentsOf collects the extents of the sparse files copied, by job.
type extentsOf struct {
	mu sync.Mutex
	m  map[int][]tree.Extent
}

func (x *extentsOf) set(k int, ext []tree.Extent) {
	x.mu.Lock()
	if ext == nil {
		delete(x.m, k)
	} else {
		if x.m == nil {
			x.m = map[int][]tree.Extent{}
		}
		x.m[k] = ext
	}
	x.mu.Unlock()
}

// copyObjects copies the files of the jobs not copied yet (state 0) from
// root into objects/id, the small ones packed together (full saves and
// deltas alike: a few large files written sequentially instead of one per
// file), numbering new objects from first, and records in each job its
// object, the bytes kept and its state (chk); path names a job's file.
// ext collects the extents of the sparse files (by job). It returns the
// next free object number. A file gone or changed is not an error: its
// state says so.
func (s *Store) copyObjects(ctx context.Context, root, id string, jobs []copyJob, first uint32, path func(ref int32) string,
	chk *copyCheck, ext *extentsOf, progress tree.ProgressFunc) (uint32, error) {
	var total int64
	for i := range jobs {
		if jobs[i].state == 0 {
			total += jobs[i].size
		}
	}
	src, err := tree.OpenTree(root)
	if err != nil {
		return first, err
	}
	defer src.Close()
	objs, err := tree.OpenTree(s.Path("objects", id))
	if err != nil {
		return first, err
	}
	defer objs.Close()
	clone := tree.SameDev(root, objs.Dir)
	small, packs, single := packGroups(jobs)
	m := tree.NewMeter(progress, "saving", total, len(small)+len(single))
	c := &copier{src: src, objs: objs, jobs: jobs, path: path, chk: chk, ext: ext, clone: clone}
	err = tree.Pool(len(packs)+len(single), tree.Workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		num := first + uint32(k)
		if k < len(packs) {
			group := small[packs[k][0]:packs[k][1]]
			n, err := c.pack(num, group)
			m.Add(n, len(group))
			return err
		}
		j := int(single[k-len(packs)])
		if err := c.single(j, num); err != nil {
			return err
		}
		m.Add(jobs[j].size, 1)
		return nil
	})
	m.Done()
	return first + uint32(len(packs)+len(single)), err
}

// copier copies a save's jobs (copyObjects).
type copier struct {
	src, objs *tree.DirTree
	jobs      []copyJob
	path      func(ref int32) string
	chk       *copyCheck
	ext       *extentsOf
	clone     bool
}

// openScanned opens job k's file and reads its identity; gone reports a
// path that is no longer there as a regular file (removed, replaced by
// something else, or a folder on its way replaced by a symlink).
func (c *copier) openScanned(k int) (fd int, id tree.Ident, gone bool, err error) {
	fd, err = openToRead(c.src, c.path(c.jobs[k].ref))
	if isGone(err) {
		return -1, tree.Ident{}, true, nil
	}
	if err != nil {
		return -1, tree.Ident{}, false, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1, tree.Ident{}, err == nil, err
	}
	return fd, tree.IdentOf(&st), false, nil
}

// openToRead opens rel under t for reading, leaving its access time alone
// where it can (O_NOATIME needs the owner or root).
func openToRead(t *tree.DirTree, rel string) (int, error) {
	fd, err := t.Open(rel, unix.O_RDONLY|unix.O_NONBLOCK|tree.ONoAtime, 0)
	if errors.Is(err, unix.EPERM) && tree.ONoAtime != 0 {
		fd, err = t.Open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	}
	return fd, err
}

// single copies job j's file (the k-th object, num) into an object of its
// own (a clone where they share a file system that can, unless it is
// sparse: its holes are left out; a large file with direct I/O,
// directCopy), pushing it to the disk when syncEachFile or large.
func (c *copier) single(j int, num uint32) error {
	in, id, gone, err := c.openScanned(j)
	if gone {
		c.jobs[j].state = jobGone
		return nil
	}
	if err != nil {
		return err
	}
	defer unix.Close(in)
	job := &c.jobs[j]
	name := strconv.FormatUint(uint64(num), 10)
	out, cloned, err := c.objs.Create(name, 0o600, in, c.clone && !job.sparse)
	if err != nil {
		return err
	}
	e := tree.Entry{Size: job.size, Sparse: job.sparse}
	direct := false
	copy := func() error {
		if cloned {
			var st unix.Stat_t
			err := unix.Fstat(out, &st)
			e.Size = st.Size
			return err
		}
		var err error
		direct = false
		if !job.sparse && job.size >= tree.DirectMin {
			e.Size, direct, err = tree.DirectCopy(out, in, true)
		}
		if !direct && err == nil {
			_, err = tree.SaveData(out, in, &e, c.clone)
		}
		return err
	}
	redo := func() error {
		if cloned { // a clone is taken whole again
			unix.Close(out)
			if err := unix.Unlinkat(c.objs.Fd, name, 0); err != nil {
				return err
			}
			var err error
			out, cloned, err = c.objs.Create(name, 0o600, in, c.clone && !job.sparse)
			return err
		}
		if _, err := unix.Seek(out, 0, unix.SEEK_SET); err != nil {
			return err
		}
		return tree.RetryEINTR(func() error { return unix.Ftruncate(out, 0) })
	}
	err = c.held(j, in, id, copy, redo)
	// A direct copy left nothing in the cache to push (a tail under a
	// block at most: the commit's flush takes it).
	if err == nil && !direct && (tree.SyncEachFile || e.Size >= pushSize) {
		err = tree.PushFile(out)
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	if err != nil {
		return tree.NoSpace(fmt.Errorf("copy %s to %s: %w", c.src.Path(c.path(job.ref)), c.objs.Path(name), err))
	}
	job.size, job.num, job.off, job.packed = e.Size, num, 0, false
	c.ext.set(j, e.Extents)
	return nil
}

// Small files a save copies are packed: written one after another
// into a few pack objects instead of one object each, since creating a
// file on the store's disk costs far more than writing a few KiB.
const (
	packMax   = 64 << 10 // files up to this size are packed
	packBytes = 8 << 20  // a pack is closed past this size
	packFiles = 4096     // or with this many files, so that a tree of tiny files makes packs enough for the workers
	// pushSize: an object this large is pushed to the disk (pushFile) as
	// it closes, as packs are, so that gigabytes of dirty pages do not
	// pile up for the final flush.
	pushSize = packBytes
)

// packGroups splits the small files of the jobs still to copy (state 0)
// into packs (each at least 2 files, at most about packBytes or packFiles
// files): small lists them by job, and each pack is a range [lo, hi) of
// small; single lists the other files still to copy (a pack of one is just
// an object).
func packGroups(jobs []copyJob) (small []int32, packs [][2]int, single []int32) {
	n, m := 0, 0
	for i := range jobs {
		if jobs[i].state == 0 {
			if m++; jobs[i].size <= packMax {
				n++
			}
		}
	}
	small = make([]int32, 0, n)
	single = make([]int32, 0, m-n)
	for i := range jobs {
		if jobs[i].state != 0 {
			continue
		}
		if jobs[i].size <= packMax {
			small = append(small, int32(i))
		} else {
			single = append(single, int32(i))
		}
	}
	var size int64
	lo := 0
	closePack := func(hi int) {
		if hi-lo == 1 {
			single = append(single, small[lo])
		} else if hi > lo {
			packs = append(packs, [2]int{lo, hi})
		}
		lo, size = hi, 0
	}
	for i, j := range small {
		if size += jobs[j].size; size >= packBytes || i+1-lo >= packFiles {
			closePack(i + 1)
		}
	}
	closePack(len(small))
	return small, packs, single
}

// pack copies the files of group (jobs by number) into a new pack object
// num, one after another (a sparse one's data only), recording in each job
// its place in the pack, the bytes kept and its state, and pushes the pack
// to the disk (pushFile) before closing it. A file gone takes no room.
func (c *copier) pack(num uint32, group []int32) (int64, error) {
	name := strconv.FormatUint(uint64(num), 10)
	out, _, err := c.objs.Create(name, 0o600, -1, false)
	if err != nil {
		return 0, err
	}
	var off int64
	err = func() error {
		for _, k := range group {
			n, err := c.packed(out, int(k), num, off)
			if err != nil {
				return tree.NoSpace(fmt.Errorf("copy %s to %s: %w", c.src.Path(c.path(c.jobs[k].ref)), c.objs.Path(name), err))
			}
			off += n
		}
		return tree.PushFile(out)
	}()
	if cerr := unix.Close(out); err == nil && cerr != nil {
		err = tree.NoSpace(fmt.Errorf("write %s: %w", c.objs.Path(name), cerr))
	}
	return off, err
}

// packed copies job k's file into the pack out (object num) at off, its
// end, and returns the bytes it takes there.
func (c *copier) packed(out, k int, num uint32, off int64) (int64, error) {
	j := &c.jobs[k]
	in, id, gone, err := c.openScanned(k)
	if gone {
		j.state = jobGone
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer unix.Close(in)
	e := tree.Entry{Size: j.size, Sparse: j.sparse}
	var n int64
	copy := func() (err error) {
		n, err = tree.SaveData(out, in, &e, false)
		return err
	}
	redo := func() error {
		if _, err := unix.Seek(out, off, unix.SEEK_SET); err != nil {
			return err
		}
		return tree.RetryEINTR(func() error { return unix.Ftruncate(out, off) })
	}
	if err := c.held(k, in, id, copy, redo); err != nil {
		return 0, err
	}
	j.size, j.num, j.off, j.packed = e.Size, num, off, true
	c.ext.set(k, e.Extents)
	return n, nil
}
