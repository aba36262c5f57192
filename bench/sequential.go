package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// seqFile is the sequential rows' file in their run's folder.
const seqFile = "seq.bin"

// runSequential writes e.sz.seq bytes in blocks bypassing the cache into a
// file laid out first, syncs, then reads them back the same way. Samples:
// write MiB/s, read MiB/s.
func runSequential(ctx context.Context, e *runEnv, dir, fsName string, st *jobState) ([]float64, error) {
	path := filepath.Join(dir, seqFile)
	buf := alignedBuf(e.sz.block)
	w, direct, err := writeSequential(ctx, e, path, buf, fsName, st)
	if err != nil {
		return nil, err
	}
	if !direct {
		dropCache(path)
	}
	r, err := readSequential(ctx, e, path, buf, direct)
	if err != nil {
		return nil, err
	}
	mib := float64(e.sz.seq) / (1 << 20)
	return []float64{mib / w.Seconds(), mib / r.Seconds()}, nil
}

// writeSequential does the work fio's `--rw=write --direct=1 --end_fsync=1`
// does, and times the same part: the file is created and laid out untimed
// (layOut: fio preallocates its file before its clock starts, so on tmpfs
// its writes fill pages the file already holds), then e.sz.seq bytes are
// written in blocks of e.sz.block from offset 0 and flushed, timed. It
// returns the time and whether the writes bypassed the cache.
func writeSequential(ctx context.Context, e *runEnv, path string, buf []byte, fsName string, st *jobState) (time.Duration, bool, error) {
	f, direct, err := openUncached(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, !e.opts.NoDirect)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	laid, err := layOut(f, e.sz.seq)
	if err != nil {
		return 0, false, err
	}
	st.notes = sequentialNotes(direct, laid, fsName)
	n := e.sz.seq / int64(e.sz.block)
	t0 := time.Now()
	for i := int64(0); i < n; i++ {
		if i%64 == 0 && ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		if _, err := f.Write(buf); err != nil {
			return 0, false, fmt.Errorf("write %s: %w", path, err)
		}
	}
	if err := f.Sync(); err != nil {
		return 0, false, fmt.Errorf("fsync %s: %w", path, err)
	}
	w := time.Since(t0)
	if err := f.Close(); err != nil {
		return 0, false, fmt.Errorf("close %s: %w", path, err)
	}
	return w, direct, nil
}

// readSequential reads path back in blocks of len(buf), bypassing the cache
// when direct, and returns the time it took.
func readSequential(ctx context.Context, e *runEnv, path string, buf []byte, direct bool) (time.Duration, error) {
	f, _, err := openUncached(path, os.O_RDONLY, direct)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var got int64
	t0 := time.Now()
	for {
		k, err := f.Read(buf)
		got += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", path, err)
		}
		if got%(64*int64(e.sz.block)) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
	r := time.Since(t0)
	if got != e.sz.seq {
		return 0, fmt.Errorf("read %s: got %d bytes, wrote %d", path, got, e.sz.seq)
	}
	return r, nil
}

// sequentialNotes say how the sequential rows differ from their usual
// work here: cached where the file system refuses to bypass the cache, and
// not laid out first where it cannot preallocate.
func sequentialNotes(direct, laid bool, fsName string) []*words {
	var notes []*words
	if !direct {
		notes = append(notes, wordsOf("cached (%s unsupported on %s)", uncachedHow, fsName))
	}
	if canLayOut && !laid {
		notes = append(notes, wordsOf("not laid out first (fallocate unsupported on %s)", fsName))
	}
	return notes
}
