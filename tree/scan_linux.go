//go:build linux

package tree

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// statEntries gives take the name and lstat of each entry of the open
// folder fd ("." and ".." left out), or the error its lstat gave. Names
// are read straight from the getdents records and each is stat'ed through
// statx with the record's own NUL-terminated name, so a scan makes no
// string per entry but the path it keeps (statx also skips the kernel's
// conversion to the old stat layout: about a sixth less time per call
// here). A folder of more than two buffers of records is stat'ed by a
// goroutine per core while it is still being read (statMany): one folder
// of 100,000 files would otherwise be one core's work while the others
// wait. take turns an entry into what readDir keeps (it may be called by
// several goroutines at once; name is valid only during the call); add
// is given each, one at a time, in the folder's order. grow is told about
// how many entries a large folder holds, before the first of them.
func statEntries(fd int, grow func(n int), take func(name []byte, st *unix.Stat_t, err error) (found, error), add func(*found)) error {
	first, err := readRecords(fd)
	if err != nil || first.bp == nil {
		return err
	}
	second, err := readRecords(fd)
	if err != nil {
		first.put()
		return err
	}
	if second.bp == nil { // the whole folder in one buffer, as most are
		defer first.put()
		var st unix.Stat_t // take copies what it keeps
		return eachRecord(first.recs(), func(nameZ []byte) error {
			f, err := take(nameZ[:len(nameZ)-1], &st, statxAt(fd, nameZ, &st))
			if err == nil {
				add(&f)
			}
			return err
		})
	}
	var dir unix.Stat_t
	if unix.Fstat(fd, &dir) == nil {
		grow(int(min(dir.Size/20, 1<<18))) // tmpfs: 20 bytes an entry
	}
	return statMany(fd, first, second, take, add)
}

// openFolderBeneath opens folder rel beneath top (device dev) with flags:
// OpenBeneath's openat2 refuses a symlink (ELOOP) or a mount, bind mounts
// of the same file system included (EXDEV), on the way or at its end; its
// walk where openat2 is missing refuses a symlink and a folder of another
// device.
func openFolderBeneath(top int, rel string, flags int, _ uint64) (int, error) {
	return OpenBeneath(top, rel, flags, 0)
}

// records are getdents records read into a buffer of direntBufs.
type records struct {
	bp *[]byte // nil: none (the end of the folder)
	n  int
}

func (r records) recs() []byte { return (*r.bp)[:r.n] }

// put gives the buffer back.
func (r records) put() { direntBufs.Put(r.bp) }

// readRecords reads the next getdents records of the open folder fd (bp
// nil at the end); the caller puts them back.
func readRecords(fd int) (records, error) {
	bp := direntBufs.Get().(*[]byte)
	for {
		n, err := unix.Getdents(fd, *bp)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			direntBufs.Put(bp)
			return records{}, err
		}
		return records{bp, n}, nil
	}
}

// eachRecord calls fn with the NUL-terminated name of each getdents
// record in recs, but "." and "..".
func eachRecord(recs []byte, fn func(nameZ []byte) error) error {
	for off := 0; off+19 < len(recs); {
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		reclen := int(binary.NativeEndian.Uint16(recs[off+16:]))
		if reclen < 20 || off+reclen > len(recs) {
			return unix.EIO
		}
		name := recs[off+19 : off+reclen]
		z := bytes.IndexByte(name, 0)
		if z < 0 {
			return unix.EIO
		}
		off += reclen
		if z == 0 || (name[0] == '.' && (z == 1 || (z == 2 && name[1] == '.'))) {
			continue
		}
		if err := fn(name[:z+1]); err != nil {
			return err
		}
	}
	return nil
}

// statMany stats the entries of a large folder: this goroutine reads the
// rest of its records (after first and second) while a goroutine per core
// (at most eight) stats and takes the entries of each buffer read. The
// buffers' entries are added in the order they were read (whichever
// goroutine finds the next buffer done adds it, under a lock), so add
// sees the folder's own order, which a folder written in name order
// keeps. The first error stops them all.
func statMany(fd int, first, second records, take func(name []byte, st *unix.Stat_t, err error) (found, error), add func(*found)) error {
	type batch struct {
		r     records
		found *[]found
		err   error
		done  bool
	}
	var (
		mu     sync.Mutex
		failed error
		wg     sync.WaitGroup
		stop   atomic.Bool
		read   []*batch // in reading order, from added on
		added  int      // batches added
	)
	// addDone adds the batches done so far, in order; mu is held.
	addDone := func() {
		for added < len(read) && read[added].done {
			b := read[added]
			read[added] = nil
			added++
			if b.err != nil && failed == nil {
				failed = b.err
				stop.Store(true)
			}
			if b.found != nil {
				for i := 0; i < len(*b.found) && failed == nil; i++ {
					add(&(*b.found)[i])
				}
				clear(*b.found)
				*b.found = (*b.found)[:0]
				foundBufs.Put(b.found)
			}
			b.r.put()
		}
	}
	work := make(chan *batch, 4)
	for range min(runtime.GOMAXPROCS(0), 8) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var st unix.Stat_t
			for b := range work {
				if !stop.Load() {
					b.found = foundBufs.Get().(*[]found)
					b.err = eachRecord(b.r.recs(), func(nameZ []byte) error {
						f, err := take(nameZ[:len(nameZ)-1], &st, statxAt(fd, nameZ, &st))
						*b.found = append(*b.found, f)
						return err
					})
				}
				mu.Lock()
				b.done = true
				addDone()
				mu.Unlock()
			}
		}()
	}
	queue := func(r records) {
		b := &batch{r: r}
		mu.Lock()
		read = append(read, b)
		mu.Unlock()
		work <- b
	}
	queue(first)
	queue(second)
	for !stop.Load() {
		r, err := readRecords(fd)
		if err != nil {
			mu.Lock()
			if failed == nil {
				failed = err
			}
			mu.Unlock()
			stop.Store(true)
		}
		if r.bp == nil {
			break
		}
		queue(r)
	}
	close(work)
	wg.Wait()
	return failed
}

// foundBufs hold a buffer's entries between statMany's take and add.
var foundBufs = sync.Pool{New: func() any { s := make([]found, 0, 1024); return &s }}

// lstatEntry lstats name in folder fd as statxAt does.
func lstatEntry(fd int, name string, st *unix.Stat_t) error {
	return statxAt(fd, append([]byte(name), 0), st)
}

// statxAt lstats the entry named nameZ (its name and a NUL) in folder fd,
// through statx, filling the fields of st a scan reads; it falls back to
// fstatat where a file system cannot tell them all. The root of a mount
// (STATX_ATTR_MOUNT_ROOT, Linux 5.8: a bind mount of the disk's own file
// system too, which its device does not tell) gives errMountRoot, st
// filled.
func statxAt(fd int, nameZ []byte, st *unix.Stat_t) error {
	var x unix.Statx_t
	_, _, e := unix.Syscall6(unix.SYS_STATX, uintptr(fd), uintptr(unsafe.Pointer(&nameZ[0])),
		uintptr(unix.AT_SYMLINK_NOFOLLOW|unix.AT_STATX_DONT_SYNC), uintptr(unix.STATX_BASIC_STATS), uintptr(unsafe.Pointer(&x)), 0)
	if e != 0 {
		return e
	}
	var mount error
	if x.Attributes_mask&x.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		mount = errMountRoot
	}
	if x.Mask&unix.STATX_BASIC_STATS != unix.STATX_BASIC_STATS {
		if err := unix.Fstatat(fd, string(nameZ[:len(nameZ)-1]), st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		return mount
	}
	*st = unix.Stat_t{
		Dev: unix.Mkdev(x.Dev_major, x.Dev_minor), Ino: x.Ino, Mode: uint32(x.Mode), Uid: x.Uid, Gid: x.Gid,
		Rdev: unix.Mkdev(x.Rdev_major, x.Rdev_minor), Size: int64(x.Size), Blocks: int64(x.Blocks),
		Atim: unix.Timespec{Sec: x.Atime.Sec, Nsec: int64(x.Atime.Nsec)},
		Mtim: unix.Timespec{Sec: x.Mtime.Sec, Nsec: int64(x.Mtime.Nsec)},
		Ctim: unix.Timespec{Sec: x.Ctime.Sec, Nsec: int64(x.Ctime.Nsec)},
	}
	setNlink(&st.Nlink, x.Nlink) // uint64 on amd64, uint32 on arm64
	return mount
}

func setNlink[T ~uint32 | ~uint64](p *T, n uint32) { *p = T(n) }

// populate maps every page of b, writable, in one call
// (MADV_POPULATE_WRITE, Linux 5.14); false if the kernel cannot.
func populate(b []byte) bool {
	return unix.Madvise(b, unix.MADV_POPULATE_WRITE) == nil
}
