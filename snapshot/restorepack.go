package snapshot

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"
)

// packJob is a run of the files packed in one pack object, in the order
// of their bytes in it.
type packJob struct {
	rel   string // the pack, relative to the folder read from
	files []packedFile
}

// packedFile is an entry (its index) and where its bytes are in the pack.
type packedFile struct {
	i   int
	src tree.ObjRef
}

// packJobFiles bounds a pack job, so that the workers share a large pack
// (a pack holds up to packFiles files).
const packJobFiles = 1024

// plan splits the regular files of entries into pack jobs (packed files
// without holes, read pack by pack) and the others (single, by index),
// and sums their bytes and count.
func (b *Build) plan(entries []tree.Entry) (jobs []packJob, single []int, total int64, n int) {
	byPack := map[string][]packedFile{}
	var order []string
	for i := range entries {
		e := &entries[i]
		if e.Kind != tree.KindFile || e.HardLink != "" {
			continue
		}
		total += e.Size
		n++
		if b.CopyFile == nil && b.reuse == nil && e.Extents == nil {
			if src, err := b.Src(*e); err == nil && src.Packed {
				if _, ok := byPack[src.Rel]; !ok {
					order = append(order, src.Rel)
				}
				byPack[src.Rel] = append(byPack[src.Rel], packedFile{i, src})
				continue
			}
		}
		single = append(single, i)
	}
	for _, rel := range order {
		files := byPack[rel]
		slices.SortStableFunc(files, func(x, y packedFile) int { return cmpInt64(x.src.Off, y.src.Off) })
		for len(files) > 0 {
			k := min(len(files), packJobFiles)
			jobs = append(jobs, packJob{rel: rel, files: files[:k]})
			files = files[k:]
		}
	}
	return jobs, single, total, n
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// restorePack writes the files of job from their pack, opened once and
// read sequentially in large reads (the kernel told to read ahead), each
// file created, written in one write and given its metadata through its
// descriptor.
func (b *Build) restorePack(ctx context.Context, entries []tree.Entry, job packJob, m *tree.Meter) error {
	in, err := b.fromT.OpenFile(job.rel)
	if err != nil {
		return err
	}
	defer unix.Close(in)
	first, last := job.files[0].src, job.files[len(job.files)-1].src
	tree.ReadAhead(in, first.Off, last.Off+last.Size-first.Off)
	r := packReader{fd: in, buf: tree.CopyBufs.Get().(*[]byte)}
	defer tree.CopyBufs.Put(r.buf)
	pc := parentCache{t: b.toT, fd: -1}
	defer pc.close()
	for _, f := range job.files {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := entries[f.i]
		if err := b.packedFile(&r, &pc, e, f.src); err != nil {
			return tree.NoSpace(fmt.Errorf("copy %s to %s: %w", b.fromT.Path(job.rel), b.toT.Path(e.Path), err))
		}
		m.Add(e.Size, 1)
	}
	return nil
}

// packedFile writes the packed file e, its bytes read through r.
func (b *Build) packedFile(r *packReader, pc *parentCache, e tree.Entry, src tree.ObjRef) error {
	mode, chmod := createMode(e)
	out, err := pc.create(e.Path, mode)
	if err != nil {
		return err
	}
	data, err := r.read(src.Off, src.Size)
	if err == nil {
		if data != nil {
			err = tree.WriteAll(out, data)
		} else {
			err = tree.RangeCopy(out, r.fd, src.Off, src.Size)
		}
	}
	if err == nil {
		err = b.toT.SetMeta(out, e.Path, e, chmod)
	}
	if cerr := unix.Close(out); err == nil {
		err = cerr
	}
	return err
}

// parentCache holds the folder of the file last made from a pack: packs
// hold files in path order, so most files go in the folder the one before
// went in, and are made relative to it (one path component to look up,
// not the whole path from the root). The folder was opened beneath the
// tree, and a folder cannot be moved to another file system, so what is
// made through it stays on the disk.
type parentCache struct {
	t   *tree.DirTree
	dir string // rel of the folder held, when fd >= 0
	fd  int
}

// create makes the file rel (O_EXCL: never an existing file or a symlink).
func (c *parentCache) create(rel string, mode uint32) (int, error) {
	dir, name := ".", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	pfd := c.t.Fd
	if dir != "." {
		if c.fd < 0 || c.dir != dir {
			c.close()
			fd, err := c.t.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				return -1, err
			}
			c.dir, c.fd = dir, fd
		}
		pfd = c.fd
	}
	out, err := unix.Openat(pfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
	if err != nil {
		return -1, tree.NoSpace(&os.PathError{Op: "create", Path: c.t.Path(rel), Err: err})
	}
	return out, nil
}

func (c *parentCache) close() {
	if c.fd >= 0 {
		unix.Close(c.fd)
		c.fd = -1
	}
}

// packReader reads ranges of a pack through a buffer refilled by large
// preads, so that files packed one after another cost one read per buffer,
// not one per file.
type packReader struct {
	fd  int
	buf *[]byte
	off int64 // where the buffered bytes start in the pack
	n   int   // how many are buffered
}

// read returns the size bytes at off (valid until the next read), or nil
// when they do not fit the buffer (the caller copies them directly).
func (r *packReader) read(off, size int64) ([]byte, error) {
	buf := *r.buf
	if size > int64(len(buf)) {
		return nil, nil
	}
	if off >= r.off && off+size <= r.off+int64(r.n) {
		return buf[off-r.off : off-r.off+size], nil
	}
	n, err := tree.PreadFull(r.fd, buf, off)
	r.off, r.n = off, n
	if err != nil {
		return nil, err
	}
	if int64(n) < size {
		return nil, fmt.Errorf("pack ends %d bytes early: %w", size-int64(n), snapstore.ErrBadManifest)
	}
	return buf[:size], nil
}
