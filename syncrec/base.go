package syncrec

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sort"
	"syscall"

	"rambar/snapstore"
	"rambar/tree"
)

// A base file of the sync record: magic, blocks of up to blockPaths paths
// (each block starts its paths afresh, so one can be read alone), the
// blocks' index (per block: offset, length, paths, CRC, first path), then
// the index's offset and CRC. A write-back reads the index and the blocks
// of the paths it looks at; a compaction reads them all, in order.

// baseWriter streams a base file: paths in order, blockPaths to a block.
type baseWriter struct {
	w          io.Writer
	off        int64
	blk, index snapstore.Encoder
	st         recState // the block's state
	last       string   // the file's last path
	inBlock    int
	blocks, n  int
	first      string
}

func newBaseWriter(w io.Writer) (*baseWriter, error) {
	b := &baseWriter{w: w, off: int64(len(baseMagic))}
	_, err := io.WriteString(w, baseMagic)
	return b, err
}

// add appends p, which must come after the last path added.
func (b *baseWriter) add(p *Path) error {
	if b.n > 0 && !tree.PathLess(b.last, p.Path) {
		return fmt.Errorf("mirror record: %q after %q", p.Path, b.last)
	}
	if b.inBlock == 0 {
		b.first, b.st = p.Path, recState{}
	}
	putSyncPath(&b.blk, &b.st, p)
	b.last = p.Path
	b.inBlock++
	b.n++
	if b.inBlock == blockPaths {
		return b.flush()
	}
	return nil
}

// flush writes the block being filled and notes it in the index.
func (b *baseWriter) flush() error {
	if b.inBlock == 0 {
		return nil
	}
	b.index.Uv(uint64(b.off))
	b.index.Uv(uint64(len(b.blk.B)))
	b.index.Uv(uint64(b.inBlock))
	b.index.B = binary.LittleEndian.AppendUint32(b.index.B, crc32.ChecksumIEEE(b.blk.B)) // the block's CRC-32
	b.index.Str(b.first)
	if _, err := b.w.Write(b.blk.B); err != nil {
		return err
	}
	b.off += int64(len(b.blk.B))
	b.blk.B, b.inBlock = b.blk.B[:0], 0
	b.blocks++
	return nil
}

// finish writes the last block, the index and the trailer.
func (b *baseWriter) finish() error {
	if err := b.flush(); err != nil {
		return err
	}
	idx := binary.AppendUvarint(binary.AppendUvarint(nil, uint64(b.blocks)), uint64(b.n))
	idx = append(idx, b.index.B...)
	idx = binary.LittleEndian.AppendUint64(idx, uint64(b.off))
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx[:len(idx)-8]))
	_, err := b.w.Write(idx)
	return err
}

// baseFile is an open base: its blocks' index read, blocks read as asked.
type baseFile struct {
	path   string
	f      *os.File
	blocks []baseBlock
	n      int
	cached int // the block in cache, -1 none
	cache  []Path
}

type baseBlock struct {
	off, len int64
	count    int
	crc      uint32
	first    string
}

// openBase opens base file path and checks its index.
func openBase(path string) (*baseFile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read mirror record: %w", err)
	}
	b, err := readBaseIndex(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mirror record %s: %w", path, err)
	}
	b.path = path
	return b, nil
}

func readBaseIndex(f *os.File) (*baseFile, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() || size < int64(len(baseMagic))+trailerLen || size > 4*snapstore.MaxFile {
		return nil, ErrDamaged
	}
	head := make([]byte, len(baseMagic))
	tail := make([]byte, trailerLen)
	if _, err := f.ReadAt(head, 0); err != nil || string(head) != baseMagic {
		return nil, ErrDamaged
	}
	if _, err := f.ReadAt(tail, size-trailerLen); err != nil {
		return nil, err
	}
	at := int64(binary.LittleEndian.Uint64(tail))
	if at < int64(len(baseMagic)) || at > size-trailerLen {
		return nil, ErrDamaged
	}
	idx := make([]byte, size-at)
	if _, err := f.ReadAt(idx, at); err != nil {
		return nil, err
	}
	if crc32.ChecksumIEEE(idx[:len(idx)-trailerLen]) != binary.LittleEndian.Uint32(idx[len(idx)-4:]) {
		return nil, ErrDamaged
	}
	d := &snapstore.Decoder{B: idx[:len(idx)-trailerLen]}
	nb := d.Count(5)
	b := &baseFile{f: f, n: int(d.Uv()), cached: -1, blocks: make([]baseBlock, 0, nb)}
	next, total := int64(len(baseMagic)), 0
	for i := 0; i < nb && !d.Bad; i++ {
		k := baseBlock{off: int64(d.Uv()), len: int64(d.Uv()), count: int(d.Uv())}
		if len(d.B) < 4 {
			return nil, ErrDamaged
		}
		k.crc = binary.LittleEndian.Uint32(d.B)
		d.B = d.B[4:]
		k.first = d.Str()
		if k.off != next || k.len <= 0 || k.off+k.len > at || k.count <= 0 || k.count > blockPaths ||
			snapstore.CheckPath(k.first) != nil || (i > 0 && !tree.PathLess(b.blocks[i-1].first, k.first)) {
			return nil, ErrDamaged
		}
		next, total = k.off+k.len, total+k.count
		b.blocks = append(b.blocks, k)
	}
	if !d.End() || next != at || total != b.n {
		return nil, ErrDamaged
	}
	return b, nil
}

func (b *baseFile) close() { b.f.Close() }

// block reads and checks block i (the last one read is kept).
func (b *baseFile) block(i int) ([]Path, error) {
	if i == b.cached {
		return b.cache, nil
	}
	k := b.blocks[i]
	buf := make([]byte, k.len)
	if _, err := b.f.ReadAt(buf, k.off); err != nil {
		return nil, fmt.Errorf("read mirror record: %w", err)
	}
	if crc32.ChecksumIEEE(buf) != k.crc {
		return nil, fmt.Errorf("mirror record %s: block %d: %w", b.path, i, ErrDamaged)
	}
	d := &snapstore.Decoder{B: buf}
	out := make([]Path, 0, k.count)
	var st recState
	for j := 0; j < k.count && !d.Bad; j++ {
		out = append(out, getSyncPath(d, &st))
	}
	if !d.End() || out[0].Path != k.first {
		return nil, fmt.Errorf("mirror record %s: block %d: %w", b.path, i, ErrDamaged)
	}
	b.cached, b.cache = i, out
	return out, nil
}

// find returns path p's entry, nil when the base has none.
func (b *baseFile) find(p string) (*Path, error) {
	// The last block whose first path is not after p: the one before the
	// first whose first path is.
	i := sort.Search(len(b.blocks), func(i int) bool { return tree.PathLess(p, b.blocks[i].first) })
	if i == 0 {
		return nil, nil
	}
	ps, err := b.block(i - 1)
	if err != nil {
		return nil, err
	}
	if j, ok := findPath(ps, p); ok {
		return &ps[j], nil
	}
	return nil, nil
}

// each calls fn with every path in order (valid only during the call).
func (b *baseFile) each(fn func(*Path) error) error {
	last := ""
	for i := range b.blocks {
		ps, err := b.block(i)
		if err != nil {
			return err
		}
		if i > 0 && !tree.PathLess(last, ps[0].Path) {
			return fmt.Errorf("mirror record %s: block %d out of order: %w", b.path, i, ErrDamaged)
		}
		for j := range ps {
			if err := fn(&ps[j]); err != nil {
				return err
			}
		}
		last = ps[len(ps)-1].Path
	}
	return nil
}
