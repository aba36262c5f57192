package tree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// A large file is copied into the store with direct I/O (O_DIRECT), and
// read back from it so at a restore: its bytes go between the RAM disk
// and the drive, not through the page cache. On the machine measured (a
// VM's virtio disk) buffered writes of gigabytes crawl behind the
// kernel's write-back (180-300 MB/s, slower still after another program's
// large write) while direct writes run at the drive's speed (1.4-1.9
// GB/s); and a save of a RAM disk does not fill the rest of RAM with a
// second, cached copy of it. Reads the same way take a third of the
// processor time of sendfile's through the cache (4 GiB cold: 2.9 s and
// 2.4 s of CPU instead of 4.0-4.8 s and 6-7 s). The commit's syncfs still
// makes the objects durable before the manifest names them: direct
// writes bypass the cache, not the journal or the drive's flush.

const (
	// DirectBuf is the size of each write (each of the two buffers), a
	// multiple of any block size.
	DirectBuf = 4 << 20
	// DirectAlign is the alignment direct I/O needs of offsets, lengths
	// and memory (the largest logical block size in use: 4 KiB).
	DirectAlign = 4096
)

// directSlots bounds the direct copies at once: two keep the drive busy
// (more only queue behind each other: measured 2.2-2.6 s for 4 GiB with
// two or four at once, 3.3 s with eight).
var directSlots = make(chan struct{}, 2)

// directChunk is a part of the file read for directCopy's writer.
type directChunk struct {
	b   []byte
	n   int
	err error
}

// DirectCopy copies in to the new, empty file out with direct I/O on the
// side that is on the disk (toDisk: out, a save's object; else in, a
// restore's source), until in's end, and returns the bytes copied. A
// reader fills one buffer while the other is written, so the drive is
// never left waiting. ok is false when the file system refuses direct I/O
// before anything was copied (in is then unread: the caller copies as
// usual). A save's end of file that is not a multiple of the block size
// is written through the cache.
func DirectCopy(out, in int, toDisk bool) (n int64, ok bool, err error) {
	fd := in
	if toDisk {
		fd = out
	}
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return 0, false, nil
	}
	mem, err := unix.Mmap(-1, 0, 2*DirectBuf, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return 0, false, nil
	}
	defer unix.Munmap(mem)
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl|unix.O_DIRECT); err != nil {
		return 0, false, nil
	}
	direct := true // fd is still in direct mode
	defer func() {
		if direct {
			unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl)
		}
	}()
	directSlots <- struct{}{}
	defer func() { <-directSlots }()
	free, full := make(chan []byte, 2), make(chan directChunk, 2)
	free <- mem[:DirectBuf]
	free <- mem[DirectBuf:]
	stop, done := make(chan struct{}), make(chan struct{})
	go directRead(in, free, full, stop, done)
	defer func() { close(stop); <-done }() // before the buffers are unmapped
	for {
		c := <-full
		if c.err != nil {
			if n == 0 && errors.Is(c.err, unix.EINVAL) {
				return 0, false, nil // the file system took the flag but not the read
			}
			return n, true, c.err
		}
		whole := 0
		if toDisk && direct {
			whole = c.n &^ (DirectAlign - 1)
		}
		if whole > 0 {
			if err := WriteAll(out, c.b[:whole]); err != nil {
				if n == 0 && errors.Is(err, unix.EINVAL) {
					return 0, false, nil // the file system took the flag but not the write
				}
				return n, true, err
			}
			n += int64(whole)
		}
		if whole < c.n {
			if toDisk && direct {
				// Less than a block: the end of the file, written through
				// the cache (the commit's flush takes it).
				if _, err := unix.FcntlInt(uintptr(out), unix.F_SETFL, fl); err != nil {
					return n, true, err
				}
				direct = false
			}
			if err := WriteAll(out, c.b[whole:c.n]); err != nil {
				return n, true, err
			}
			n += int64(c.n - whole)
		}
		if c.n < len(c.b) {
			return n, true, nil // the end of the file
		}
		free <- c.b
	}
}

// directRead is directCopy's reader: it fills each free buffer from in,
// in order (pread: in's position stays at the start), and hands it on,
// until in ends (a buffer not filled), a read fails or stop is closed; it
// closes done when it returns.
func directRead(in int, free <-chan []byte, full chan<- directChunk, stop, done chan struct{}) {
	defer close(done)
	var off int64
	for {
		var b []byte
		select {
		case b = <-free:
		case <-stop:
			return
		}
		n, err := PreadFull(in, b, off)
		off += int64(n)
		select {
		case full <- directChunk{b, n, err}:
		case <-stop:
			return
		}
		if err != nil || n < len(b) {
			return
		}
	}
}
