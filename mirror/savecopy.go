package mirror

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// copyJob is one file a save copies into the store: which (ref: an item
// of the scan, or an entry of a delta) and its size as scanned and, once
// copied, the object its bytes went to and how many were kept (a file
// growing under us is seen again next save). A save holds one per file it
// copies, 24 bytes, not a whole entry.
type copyJob struct {
	size   int64
	ref    int32
	num    uint32
	sparse bool // seen by the scan to hold fewer blocks than bytes
	packed bool // in pack num, after the files of the pack before it
}

// placer gives copied files their objects, jobs taken in order: a packed
// file starts where the one before it in its pack ended (a pack's files
// are written in job order; no other pack's come between them).
type placer struct {
	id   string
	num  uint32
	off  int64
	open bool
}

// obj is where job j's bytes are (ext: its extents, nil unless sparse).
func (pl *placer) obj(j *copyJob, ext []Extent) objName {
	if !j.packed {
		return objName{Save: pl.id, Num: j.num}
	}
	if !pl.open || pl.num != j.num {
		pl.open, pl.num, pl.off = true, j.num, 0
	}
	o := objName{Save: pl.id, Num: j.num, Off: pl.off, Packed: true}
	pl.off += (&Entry{Size: j.size, Extents: ext}).stored()
	return o
}

// extentsOf collects the extents of the sparse files copied, by job.
type extentsOf struct {
	mu sync.Mutex
	m  map[int][]Extent
}

func (x *extentsOf) set(k int, ext []Extent) {
	if ext == nil {
		return
	}
	x.mu.Lock()
	if x.m == nil {
		x.m = map[int][]Extent{}
	}
	x.m[k] = ext
	x.mu.Unlock()
}

// copyObjects copies the files of jobs from root into objects/id, the
// small ones packed together (full saves and deltas alike: a few large
// files written sequentially instead of one per file), recording in each
// job its object and the bytes kept; path names a job's file. It returns
// the bytes copied and the extents of the sparse files (by job).
func (s *store) copyObjects(ctx context.Context, root, id string, jobs []copyJob, path func(ref int32) string, progress ProgressFunc) (int64, map[int][]Extent, error) {
	var total int64
	for i := range jobs {
		total += jobs[i].size
	}
	src, err := openTree(root)
	if err != nil {
		return 0, nil, err
	}
	defer src.close()
	objs, err := openTree(s.path("objects", id))
	if err != nil {
		return 0, nil, err
	}
	defer objs.close()
	clone := sameDev(root, objs.dir)
	m := newMeter(progress, "saving", total, len(jobs))
	small, packs, single := packGroups(jobs)
	ext := &extentsOf{}
	err = pool(len(packs)+len(single), workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if k < len(packs) {
			group := small[packs[k][0]:packs[k][1]]
			n, err := writePack(src, objs, uint32(k), jobs, group, path, ext)
			m.add(n, len(group))
			return err
		}
		j := int(single[k-len(packs)])
		if err := copyObject(src, objs, &jobs[j], path(jobs[j].ref), j, uint32(k), clone, ext); err != nil {
			return err
		}
		m.add(jobs[j].size, 1)
		return nil
	})
	m.done()
	if err != nil {
		return 0, nil, err
	}
	var copied int64
	for i := range jobs {
		copied += jobs[i].size
	}
	return copied, ext.m, nil
}

// copyObject copies job j's file rel (the k-th job) of the tree root into a new
// object num in the folder objs (a clone where they share a file system
// that can, unless it is sparse: its holes are left out; a large file
// with direct I/O, directCopy), fsyncing it when syncEachFile. It records the bytes kept and, for a sparse file,
// its extents.
func copyObject(root, objs *dirTree, j *copyJob, rel string, k int, num uint32, clone bool, ext *extentsOf) error {
	name := strconv.FormatUint(uint64(num), 10)
	in, err := root.openFile(rel)
	if err != nil {
		return err
	}
	defer unix.Close(in)
	out, cloned, err := objs.create(name, 0o600, in, clone && !j.sparse)
	if err != nil {
		return err
	}
	e := Entry{Size: j.size, sparse: j.sparse}
	direct := false
	if cloned {
		var st unix.Stat_t
		if err = unix.Fstat(out, &st); err == nil {
			e.Size = st.Size
		}
	} else if !j.sparse && j.size >= directMin {
		e.Size, direct, err = directCopy(out, in, true)
	}
	if !cloned && !direct && err == nil {
		_, err = saveData(out, in, &e, clone)
	}
	// A direct copy left nothing in the cache to push (a tail under a
	// block at most: the commit's flush takes it).
	if err == nil && !direct && (syncEachFile || e.Size >= pushSize) {
		err = pushFile(out)
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	if err != nil {
		return noSpace(fmt.Errorf("copy %s to %s: %w", root.path(rel), objs.path(name), err))
	}
	j.size, j.num = e.Size, num
	ext.set(k, e.Extents)
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

// packGroups splits the small files of jobs into packs (each at least 2
// files, at most about packBytes or packFiles files): small lists them by
// job, and each pack is a range [lo, hi) of small; single lists the other
// files (a pack of one is just an object).
func packGroups(jobs []copyJob) (small []int32, packs [][2]int, single []int32) {
	n := 0
	for i := range jobs {
		if jobs[i].size <= packMax {
			n++
		}
	}
	small = make([]int32, 0, n)
	single = make([]int32, 0, len(jobs)-n)
	for i := range jobs {
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

// writePack copies the files of group (jobs by number; path names their
// files) from the tree root into a new pack object num in the folder
// objs, one after another (a sparse one's data only), recording in each
// job its pack and the bytes kept, and pushes it to the disk (pushFile)
// before closing it.
func writePack(root, objs *dirTree, num uint32, jobs []copyJob, group []int32, path func(int32) string, ext *extentsOf) (int64, error) {
	name := strconv.FormatUint(uint64(num), 10)
	out, _, err := objs.create(name, 0o600, -1, false)
	if err != nil {
		return 0, err
	}
	var off int64
	err = func() error {
		for _, k := range group {
			j := &jobs[k]
			rel := path(j.ref)
			in, err := root.openFile(rel)
			if err != nil {
				return err
			}
			e := Entry{Size: j.size, sparse: j.sparse}
			n, err := saveData(out, in, &e, false)
			unix.Close(in)
			if err != nil {
				return noSpace(fmt.Errorf("copy %s to %s: %w", root.path(rel), objs.path(name), err))
			}
			j.size, j.num, j.packed = e.Size, num, true
			ext.set(int(k), e.Extents)
			off += n
		}
		return pushFile(out)
	}()
	if cerr := unix.Close(out); err == nil && cerr != nil {
		err = noSpace(fmt.Errorf("write %s: %w", objs.path(name), cerr))
	}
	return off, err
}
