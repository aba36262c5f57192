//go:build linux

package linux

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"rambar/i18n"
	"rambar/internal/diskid"
	"rambar/internal/diskspace"
	"rambar/ramdisk"
)

// mounts reads the mount table of this process's namespace.
func (e *Engine) mounts() ([]mountEntry, error) {
	f, err := os.Open(filepath.Join(e.proc, "self", "mountinfo"))
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	defer f.Close()
	return parseMountInfo(f)
}

// realRoot is the mount root with symlinks resolved, as the mount table
// spells it.
func (e *Engine) realRoot() string {
	if r, err := filepath.EvalSymlinks(e.root); err == nil {
		return r
	}
	return e.root
}

// mountAt returns the mount visible at dir (the last one mounted there).
func mountAt(ms []mountEntry, dir string) (mountEntry, bool) {
	var found mountEntry
	ok := false
	for _, m := range ms {
		if m.MountPoint == dir {
			found, ok = m, true
		}
	}
	return found, ok
}

// kind tells a RAM disk's file system from its mount: tmpfs, or ext4 on a
// zram device.
func kind(m mountEntry) (ramdisk.FileSystem, bool) {
	switch {
	case m.FSType == "tmpfs":
		return ramdisk.TmpFS, true
	case zramDevice(m.Source) >= 0:
		return ramdisk.ZRAM, true
	}
	return "", false
}

// List implements ramdisk.Engine: every tmpfs, and every ext4 on a zram
// device, mounted directly under the mount root, whoever made it. Managed
// says whether RAMBar did (tmpfs source "rambar"; zram ext4 label
// "rambar"). A tmpfs RAMBar mounted at a folder of the user's choice (source
// "rambar:NAME") is listed wherever it is, as NAME.
func (e *Engine) List(ctx context.Context) ([]ramdisk.Volume, error) {
	ms, err := e.mounts()
	if err != nil {
		return nil, err
	}
	root := e.realRoot()
	last := map[string]mountEntry{}
	for _, m := range ms {
		if _, custom := customMount(m); custom || filepath.Dir(m.MountPoint) == root && m.MountPoint != root {
			last[m.MountPoint] = m
		}
	}
	e.sweepDetached(ctx, ms)
	var out []ramdisk.Volume
	for _, m := range last {
		if v, ok := e.volume(m); ok {
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// volume describes a mount as a Volume; false when it is not a RAM disk or
// has gone.
func (e *Engine) volume(m mountEntry) (ramdisk.Volume, bool) {
	fs, ok := kind(m)
	if !ok {
		return ramdisk.Volume{}, false
	}
	v := ramdisk.Volume{
		Name: filepath.Base(m.MountPoint), MountPoint: m.MountPoint, Device: m.Source, FS: fs,
		Allocation: ramdisk.AllocOnWrite,
	}
	// Its identity: device, root inode and birth time (statx), this boot.
	v.Identity, _ = diskid.Of(m.MountPoint)
	switch fs {
	case ramdisk.TmpFS:
		st, err := diskspace.Of(m.MountPoint)
		if err != nil {
			return ramdisk.Volume{}, false
		}
		v.Size = ramdisk.Size(st.Total)
		v.Managed = m.Source == mountSource
		if name, ok := customMount(m); ok {
			v.Name, v.Managed = name, true
		}
	case ramdisk.ZRAM:
		n := zramDevice(m.Source)
		size, err := e.readInt(filepath.Join(e.sys, "block", "zram"+strconv.Itoa(n), "disksize"))
		if err != nil {
			return ramdisk.Volume{}, false
		}
		v.Size = ramdisk.Size(size)
		label, _, err := ext4Super(m.Source)
		switch {
		case err != nil:
			v.Notes = append(v.Notes, ramdisk.Sayf("whether RAMBar made it is unknown: %v", err))
		case label == zramLabel:
			v.Managed = true
		}
		if !strings.Contains(","+m.SuperOptions+",", ",discard,") {
			v.Notes = append(v.Notes, ramdisk.Sayf("mounted without discard: deleting files does not give memory back until fstrim or eject"))
		}
	}
	return v, true
}

func (e *Engine) readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", path, strings.TrimSpace(string(b)))
	}
	return n, nil
}

// Usage implements ramdisk.Engine.
//
// tmpfs: Size, Used and Free come from statfs(2). Held is the used blocks
// too, and that is right for tmpfs: its blocks are its pages, counted as
// they are allocated and returned as soon as a file is deleted (or, when a
// deleted file is still open, when it is closed — statfs keeps counting it
// until then, as the memory does). They show in /proc/meminfo as Shmem
// (with every other tmpfs and shared memory). Pages swapped out still count,
// so Held is an upper bound on RAM when the machine swaps.
//
// zram: Size/Used/Free from statfs; Held is the device's mem_used_total
// (compressed data plus allocator overhead) and Stored its orig_data_size,
// from /sys/block/zramN/mm_stat.
func (e *Engine) Usage(ctx context.Context, v ramdisk.Volume) (ramdisk.Usage, error) {
	ms, err := e.mounts()
	if err != nil {
		return ramdisk.Usage{}, err
	}
	mp := filepath.Clean(v.MountPoint)
	m, ok := mountAt(ms, mp)
	if !ok {
		return ramdisk.Usage{}, i18n.Errorf("%s: %w (nothing is mounted at %s)", v.Name, ramdisk.ErrNotFound, mp)
	}
	fs, ok := kind(m)
	if !ok {
		return ramdisk.Usage{}, i18n.Errorf("%s: %w (%s is %s, not a RAM disk)", v.Name, ramdisk.ErrNotFound, mp, m.FSType)
	}
	st, err := diskspace.Of(mp)
	if err != nil {
		return ramdisk.Usage{}, err
	}
	u := ramdisk.Usage{
		Size:  ramdisk.Size(st.Total),
		Used:  ramdisk.Size(st.Used),
		Free:  ramdisk.Size(st.Free),
		Files: st.Files,
		At:    e.now(),
	}
	switch fs {
	case ramdisk.TmpFS:
		u.Held, u.HeldKnown = u.Used, true
	case ramdisk.ZRAM:
		// Written data sits in the page cache until writeback; flush this
		// file system first so mm_stat counts what the files hold, not what
		// happened to be written back so far.
		syncFS(mp)
		mm, err := e.mmStat(zramDevice(m.Source))
		if err != nil {
			return ramdisk.Usage{}, err
		}
		u.Held, u.HeldKnown, u.Stored = ramdisk.Size(mm.MemUsedTotal), true, ramdisk.Size(mm.OrigDataSize)
		// With discard a deleted file's blocks leave zram at once: what it
		// holds beyond the files is ext4's own (journal, tables), not pinned.
		u.FreesDeleted = strings.Contains(","+m.SuperOptions+",", ",discard,")
	}
	return u, nil
}

// Memory implements ramdisk.Engine from /proc/meminfo; Compressed is what
// all zram devices hold (their mem_used_total).
func (e *Engine) Memory(ctx context.Context) (ramdisk.Memory, error) {
	f, err := os.Open(filepath.Join(e.proc, "meminfo"))
	if err != nil {
		return ramdisk.Memory{}, fmt.Errorf("read memory: %w", err)
	}
	defer f.Close()
	mi, err := parseMemInfo(f)
	if err != nil {
		return ramdisk.Memory{}, err
	}
	return memoryFrom(mi, e.zramHeld())
}
