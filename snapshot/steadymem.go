package snapshot

import (
	"context"
	"fmt"
	"strconv"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// A steady take (steady.go) copies its group's files into memory, not into
// the store: reading a file of the RAM disk into memory takes a fraction
// of the time writing it to the store does (pages to allocate, a disk
// behind it), and the group must be copied whole between two writes of a
// program that never stops, a few milliseconds apart. Only the copies of
// the try that made the group's moment are then written to the store, at
// leisure (storeMem). A sparse file is copied to the store as a save's
// other files are (its holes are kept), and so is whatever does not fit in
// steadyMemMax.

// steadyMemMax bounds the memory a save's steady takes hold.
const steadyMemMax = 64 << 20

// memBig: a copy larger than this is held in a mapping of its own, given
// back to the system as soon as it is done with.
const memBig = 256 << 10

// memCopy is a file's copy in memory: the bytes of its version id.
type memCopy struct {
	id     tree.Ident
	buf    []byte // its capacity is what is held
	n      int
	mapped bool
}

// release gives m's memory back.
func (m *memCopy) release() {
	if m.mapped {
		unix.Munmap(m.buf)
	}
	m.buf, m.n, m.mapped = nil, 0, false
}

// grow makes m hold at least n bytes, keeping none of what it held.
func (m *memCopy) grow(n int) error {
	if n <= cap(m.buf) && n > 0 {
		return nil
	}
	m.release()
	if n <= memBig {
		m.buf = make([]byte, max(n, 512))
		return nil
	}
	size := (n + n/8 + 1<<16 - 1) &^ (1<<16 - 1) // room for a file growing while read
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return fmt.Errorf("mmap %d bytes: %w", size, err)
	}
	m.buf, m.mapped = b, true
	return nil
}

// readAll reads the file open as in into m from its start to its end,
// growing m as the file does.
func (m *memCopy) readAll(in int) error {
	m.n = 0
	for {
		n, err := tree.PreadFull(in, m.buf[m.n:], int64(m.n))
		if m.n += n; err != nil || m.n < len(m.buf) {
			return err
		}
		keep := append([]byte(nil), m.buf[:m.n]...) // full: the file grew
		if err := m.grow(2 * m.n); err != nil {
			return err
		}
		m.n = copy(m.buf, keep)
	}
}

// releaseMem gives back the memory of every copy the save holds.
func (ls *liveSave) releaseMem() {
	for _, m := range ls.mem {
		m.release()
	}
	ls.mem = nil
}

// memGroup copies the jobs (files of items) into memory, each as a version
// that held still while copied (copier.held). A version newer than items
// has is kept too: items then takes its identity, and the group's check
// (groupHeld) holds the file to it. ok reports that each was copied.
func (ls *liveSave) memGroup(ctx context.Context, items []tree.Scanned, jobs []copyJob) (bool, error) {
	if len(jobs) == 0 {
		return true, nil
	}
	if ls.mem == nil {
		ls.mem = map[string]*memCopy{}
	}
	copies := make([]*memCopy, len(jobs))
	for k := range jobs {
		rel := items[jobs[k].ref].Rel
		m := ls.mem[rel]
		if m == nil {
			m = &memCopy{}
			ls.mem[rel] = m
		}
		m.id = tree.Ident{}
		if err := m.grow(int(jobs[k].size)); err != nil {
			return false, err
		}
		copies[k] = m
	}
	src, err := tree.OpenTree(ls.root)
	if err != nil {
		return false, err
	}
	defer src.Close()
	path := func(ref int32) string { return items[ref].Rel }
	chk := &copyCheck{scanned: func(k int) *tree.Scanned { return &items[jobs[k].ref] }, w: newWatch(nil, nil)}
	c := &copier{src: src, jobs: jobs, path: path, chk: chk, ext: &extentsOf{}}
	err = tree.Pool(len(jobs), tree.Workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		in, id, gone, err := c.openScanned(k)
		if gone {
			jobs[k].state = jobGone
			return nil
		}
		if err != nil {
			return err
		}
		defer unix.Close(in)
		m := copies[k]
		read := func() error { return m.readAll(in) }
		if err := c.held(k, in, id, read, func() error { return nil }); err != nil {
			return fmt.Errorf("read %s: %w", src.Path(path(jobs[k].ref)), err)
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	ok := true
	for k := range jobs {
		j, it := &jobs[k], &items[jobs[k].ref]
		switch j.state {
		case jobCopied:
			copies[k].id = it.Id
		case jobMoved:
			it.Became(chk.moved[k])
			copies[k].id = it.Id
		default:
			ok = false
		}
	}
	return ok, nil
}

// storeMem writes the memory copies of the files of items at members into
// the store, each file the group took that no earlier copy in the store
// holds: small ones one after another in a pack, the others each in an
// object of its own. Each is then a copy the round that commits the group
// finds (ls.cache), and its memory is given back.
func (ls *liveSave) storeMem(items []tree.Scanned, members []int32) error {
	objs, err := tree.OpenTree(ls.s.Path("objects", ls.id))
	if err != nil {
		return err
	}
	defer objs.Close()
	var pack []int32
	for _, i := range members {
		it := &items[i]
		if m := ls.mem[it.Rel]; m != nil && m.id == it.Id && m.id.Size == int64(m.n) {
			if c, ok := ls.cache[it.Rel]; ok && c.id == it.Id {
				continue
			}
			if m.n <= packMax {
				pack = append(pack, i)
				continue
			}
			if err := ls.writeMem(objs, items, []int32{i}); err != nil {
				return err
			}
		}
	}
	if len(pack) > 0 {
		return ls.writeMem(objs, items, pack)
	}
	return nil
}

// writeMem writes the memory copies of the files of items at refs into one
// new object (a pack when more than one), pushed to the disk, and caches
// each.
func (ls *liveSave) writeMem(objs *tree.DirTree, items []tree.Scanned, refs []int32) error {
	num := ls.next
	ls.next++
	name := strconv.FormatUint(uint64(num), 10)
	out, _, err := objs.Create(name, 0o600, -1, false)
	if err != nil {
		return tree.NoSpace(fmt.Errorf("write %s: %w", objs.Path(name), err))
	}
	var off int64
	err = func() error {
		for _, i := range refs {
			m := ls.mem[items[i].Rel]
			if err := tree.WriteAll(out, m.buf[:m.n]); err != nil {
				return err
			}
			o := tree.ObjName{Save: ls.id, Num: num, Off: off, Packed: len(refs) > 1}
			if old, had := ls.cache[items[i].Rel]; had {
				ls.drop(old.obj)
			}
			ls.cache[items[i].Rel] = cachedCopy{id: items[i].Id, obj: o, size: int64(m.n)}
			off += int64(m.n)
			m.release()
			delete(ls.mem, items[i].Rel)
		}
		return tree.PushFile(out)
	}()
	if cerr := unix.Close(out); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		return tree.NoSpace(fmt.Errorf("write %s: %w", objs.Path(name), err))
	}
	return nil
}
