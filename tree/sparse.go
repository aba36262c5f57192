package tree

import (
	"errors"

	"golang.org/x/sys/unix"
)

// Sparse files keep their holes both ways: a save stores only the ranges
// that hold data (SEEK_DATA, SEEK_HOLE), one after another, and records
// them as the entry's Extents; a restore writes each range at its offset
// and sets the size, so the holes take no memory on the disk.

// DataExtents lists the ranges of the open file fd that hold data, and its
// size. It leaves fd's position at the start.
func DataExtents(fd int) ([]Extent, int64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, 0, err
	}
	defer unix.Seek(fd, 0, unix.SEEK_SET)
	ext := []Extent{}
	for off := int64(0); off < st.Size; {
		d, err := unix.Seek(fd, off, unix.SEEK_DATA)
		if errors.Is(err, unix.ENXIO) {
			break // only a hole is left
		}
		if err != nil {
			return nil, 0, err
		}
		h, err := unix.Seek(fd, d, unix.SEEK_HOLE)
		if err != nil {
			return nil, 0, err
		}
		if h <= d { // no progress: take the rest as data
			h = st.Size
		}
		h = min(h, st.Size)
		if h > d {
			ext = append(ext, Extent{Off: d, Len: h - d})
		}
		off = h
	}
	return ext, st.Size, nil
}

// SaveData copies the file in (entry e) to out at its position: only its
// data ranges when it has holes (setting e.Extents), else all of it. It
// sets e.Size to the file's size and returns the bytes written.
func SaveData(out, in int, e *Entry, sameFS bool) (int64, error) {
	e.Extents = nil
	if e.Sparse {
		// A file system that cannot tell (an error) gets the whole file.
		ext, size, err := DataExtents(in)
		if data := (&Entry{Size: size, Extents: ext}).Stored(); err == nil && data < size {
			for _, x := range ext {
				if err := RangeCopy(out, in, x.Off, x.Len); err != nil {
					return 0, err
				}
			}
			e.Size, e.Extents = size, ext
			return data, nil
		}
	}
	n, err := kernelCopy(out, in, sameFS)
	e.Size = n
	return n, err
}

// RestoreData writes e's bytes, read from in at src, into the new file out,
// keeping holes: a stored sparse file range by range, a sparse file of a
// plain tree by its own ranges, anything else whole. It returns the bytes
// of the file.
func RestoreData(out, in int, src ObjRef, e Entry, sameFS bool) (int64, error) {
	ext, base := e.Extents, src.Off
	if ext == nil && e.Sparse && !src.Packed {
		// Each range at its own offset; a file system that cannot tell
		// (an error) gets the whole file copied.
		if x, size, err := DataExtents(in); err == nil {
			ext, e.Size, base = x, size, -1
		}
	}
	if ext == nil {
		return copyInto(out, in, src, sameFS)
	}
	for _, x := range ext {
		from := x.Off
		if base >= 0 {
			from, base = base, base+x.Len
		}
		if _, err := unix.Seek(out, x.Off, unix.SEEK_SET); err != nil {
			return 0, err
		}
		if err := RangeCopy(out, in, from, x.Len); err != nil {
			return 0, err
		}
	}
	return e.Size, RetryEINTR(func() error { return unix.Ftruncate(out, e.Size) })
}
