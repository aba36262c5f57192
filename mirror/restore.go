package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"rambar/ramdisk"
)

// restore writes snapshot id ("" = current) into dst, which must be empty
// apart from the marker. With a diskID it records the restored files'
// identities, so the next save of that disk copies nothing unchanged. It
// checks first that dst has room; nothing is written when it has not.
// Files are copied (or reflinked), never hard linked, so the disk never
// shares an inode with the store.
func (s *store) restore(ctx context.Context, id, dst, diskID string, progress ProgressFunc) (Result, error) {
	start := time.Now()
	unlock, err := s.lock(ctx)
	if err != nil {
		return Result{}, err
	}
	defer unlock()
	m, err := s.resolve(id)
	if err != nil {
		return Result{}, err
	}
	id = m.ID
	if err := restoreTree(ctx, m.Entries, s.objRef, dst, progress, s.copyFile); err != nil {
		return Result{}, err
	}
	if diskID != "" {
		items, err := scan(dst)
		if err != nil {
			return Result{}, err
		}
		_ = s.writeIndex(restoredIndex(id, diskID, m.Entries, items))
	}
	return Result{Snapshot: id, Files: m.Files, Bytes: m.Bytes, CopiedFiles: m.Files, CopiedBytes: m.Bytes, Took: time.Since(start)}, nil
}

// resolve loads snapshot id, or the current one when id is "".
func (s *store) resolve(id string) (*manifest, error) {
	if id == "" {
		cur, err := s.current()
		if err != nil {
			return nil, err
		}
		if cur == "" {
			return nil, fmt.Errorf("restore: nothing saved yet: %w", ErrNoSnapshot)
		}
		id = cur
	}
	m, err := s.manifest(id)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("restore: snapshot %s: %w", id, ErrNoSnapshot)
		}
		return nil, err
	}
	return m, nil
}

// need is the room a tree takes: its bytes plus a block per entry.
func need(entries []Entry) int64 {
	var n int64
	for _, e := range entries {
		n += 4096
		if e.Kind == KindFile {
			n += e.Size
		}
	}
	return n
}

// restoreTree recreates entries under dst, reading each file's bytes from
// src(e). It refuses before writing anything when dst lacks the room.
// copyFile, when set, writes each file's data (see Keeper.CopyFile).
func restoreTree(ctx context.Context, entries []Entry, src func(Entry) (objRef, error), dst string, progress ProgressFunc, copyFile CopyFunc) error {
	return buildTree(ctx, entries, dst, build{src: src, progress: progress, checkSpace: true, copyFile: copyFile})
}

// build says how buildTree makes a tree.
type build struct {
	src      func(Entry) (objRef, error) // where each file's bytes are
	progress ProgressFunc
	// checkSpace refuses, before anything is written, a tree that does
	// not fit.
	checkSpace bool
	// reuse may name an identical file to hard-link instead of copying
	// (write-back to a mirror folder links unchanged files from the folder
	// it replaces; a RAM disk never gets links).
	reuse func(Entry) string
	// copyFile, when set, writes each file's data (see Keeper.CopyFile).
	copyFile CopyFunc
}

// buildTree recreates entries under dst: folders, then files (in
// parallel), then symlinks, then the folders' metadata.
func buildTree(ctx context.Context, entries []Entry, dst string, b build) error {
	if err := checkRoom(entries, dst, b.checkSpace); err != nil {
		return err
	}
	if err := makeDirs(entries, dst); err != nil {
		return err
	}
	if err := b.files(ctx, entries, dst); err != nil {
		return fmt.Errorf("restore into %s: %w", dst, err)
	}
	at := func(e Entry) string { return filepath.Join(dst, filepath.FromSlash(e.Path)) }
	for _, e := range entries {
		if e.Kind == KindSymlink {
			if err := os.Symlink(e.Link, at(e)); err != nil {
				return noSpace(fmt.Errorf("restore: symlink %s: %w", at(e), err))
			}
			if err := applyMeta(at(e), e); err != nil {
				return err
			}
		}
	}
	// Folders last and deepest first: filling a folder changes its time.
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.Kind == KindDir {
			if err := applyMeta(at(e), e); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkRoom refuses (when check) a tree that needs more than dst has free.
func checkRoom(entries []Entry, dst string, check bool) error {
	need := need(entries)
	free, err := freeSpace(dst)
	if err != nil {
		return err
	}
	if check && need > free {
		return fmt.Errorf("restore into %s: %w: needs %s, %s free; nothing was written",
			dst, ramdisk.ErrNoSpace, ramdisk.Size(need).Short(), ramdisk.Size(free).Short())
	}
	return nil
}

// makeDirs makes the folders of entries under dst (parents first), with
// their metadata left for later.
func makeDirs(entries []Entry, dst string) error {
	for _, e := range entries {
		if e.Kind == KindDir && e.Path != "." {
			p := filepath.Join(dst, filepath.FromSlash(e.Path))
			if err := os.Mkdir(p, 0o700); err != nil {
				if fi, serr := os.Lstat(p); serr == nil && fi.IsDir() {
					continue // already there; its metadata is set below
				}
				return noSpace(fmt.Errorf("restore: %w", err))
			}
		}
	}
	return nil
}

// files writes the regular files of entries under dst, with a pool of workers.
func (b build) files(ctx context.Context, entries []Entry, dst string) error {
	var files []int
	var total int64
	for i, e := range entries {
		if e.Kind == KindFile {
			files = append(files, i)
			total += e.Size
		}
	}
	clone := false
	if len(files) > 0 {
		if first, err := b.src(entries[files[0]]); err == nil {
			clone = sameDev(first.Path, dst)
		}
	}
	m := newMeter(b.progress, "restoring", total, len(files))
	err := pool(len(files), workers, func(k int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		e := entries[files[k]]
		n, err := b.file(ctx, e, filepath.Join(dst, filepath.FromSlash(e.Path)), clone)
		if err != nil {
			return err
		}
		m.add(n, 1)
		return nil
	})
	m.done()
	return err
}

// file writes one file e at p and returns the bytes written.
func (b build) file(ctx context.Context, e Entry, p string, clone bool) (int64, error) {
	if b.reuse != nil {
		if old := b.reuse(e); old != "" && os.Link(old, p) == nil {
			return e.Size, nil
		}
	}
	src, err := b.src(e)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", e.Path, err)
	}
	if b.copyFile != nil {
		if err := copyThrough(ctx, b.copyFile, src, p); err != nil {
			return 0, noSpace(fmt.Errorf("copy %s: %w", e.Path, err))
		}
		return e.Size, setMeta(p, e, true)
	}
	// The mode is set through the descriptor; a mode of 0 (which copyData
	// takes as "leave it") is set by path below. A file without xattrs gets
	// its time through the descriptor too.
	var mtime *int64
	if len(e.Xattr) == 0 && filePerm(e) != 0 {
		mtime = &e.MTime
	}
	n, timed, err := copyData(src, p, clone, false, filePerm(e), mtime)
	if err != nil {
		return 0, err
	}
	if !timed {
		if err := setMeta(p, e, filePerm(e) == 0); err != nil {
			return 0, err
		}
	}
	return n, nil
}
