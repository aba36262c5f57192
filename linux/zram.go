//go:build linux

package linux

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"rambar/internal/holders"
	"rambar/internal/run"
	"rambar/ramdisk"
)

// WithZramDiscard chooses whether zram disks are mounted with the discard
// option (the default, true). With discard, ext4 tells zram which blocks a
// deleted file freed and zram gives their memory back. Without it, deleted
// files keep their compressed pages until fstrim or eject: memory pinned by
// deletes, the Linux twin of a macOS disk image's high-water mark. Tests of
// Reclaim use WithZramDiscard(false) to get such a disk for real.
func WithZramDiscard(on bool) Option { return func(e *Engine) { e.discard = on } }

// detachedMarker is the file left in the mount point of a zram disk that a
// forced eject unmounted while processes still held it: "zramN UUID". The
// device is reset and removed by the next List or Eject once it is free.
const detachedMarker = ".rambar-detached"

// zramDevice returns N for "/dev/zramN", or -1.
func zramDevice(source string) int {
	rest, ok := strings.CutPrefix(source, "/dev/zram")
	if !ok || rest == "" {
		return -1
	}
	n, err := strconv.Atoi(rest)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

func (e *Engine) zramControl(file string) string {
	return filepath.Join(e.sys, "class", "zram-control", file)
}

func (e *Engine) zramAttr(n int, attr string) string {
	return filepath.Join(e.sys, "block", "zram"+strconv.Itoa(n), attr)
}

func (e *Engine) zramAvailable() bool {
	if _, err := os.Stat(e.zramControl("hot_add")); err != nil {
		return false
	}
	return run.Has("mkfs.ext4")
}

// createZRAM adds a zram device, sizes it, formats it ext4 and mounts it at
// mp. On failure everything it did is undone (the mount point is Create's).
// A record of the device is kept from before hot_add until the mount (see
// zram_records.go), so a kill at any step leaves the device findable; the
// devices earlier killed Creates left are freed first.
func (e *Engine) createZRAM(ctx context.Context, p ramdisk.Plan, target *os.File, mp string) (v ramdisk.Volume, err error) {
	e.FreeLeftoverDevices(ctx) // best effort: a device still open waits for the next time
	rec, err := e.beginZramRecord(int64(p.Size))
	if err != nil {
		return v, err
	}
	e.did("record")
	n, err := e.hotAdd(ctx, rec)
	if err != nil {
		return v, err
	}
	rec.dev = n
	dev := "/dev/zram" + strconv.Itoa(n)
	if rec.ino = e.deviceIno(n); rec.ino != 0 {
		rec.write() // best effort: the record names the device already
	}
	mounted := false
	defer func() {
		if err == nil {
			return
		}
		if mounted {
			if uerr := e.admin.unmount(ctx, mp, false); uerr != nil {
				err = errors.Join(err, fmt.Errorf("undo mount: %w", uerr))
				return // the device cannot go while mounted
			}
		}
		if rerr := e.removeZRAM(ctx, n); rerr != nil {
			err = errors.Join(err, fmt.Errorf("undo zram%d: %w", n, rerr))
			return // the record stays: the next Create frees the device
		}
		rec.remove()
	}()
	e.did("hot_add")
	if err := e.formatZRAM(ctx, p, n); err != nil {
		return v, err
	}
	opts := append([]string{"nosuid", "nodev"}, optionFlags(p)...)
	if e.discard {
		opts = append(opts, "discard")
	}
	if err := e.mount(ctx, dev, target, mp, "ext4", opts); err != nil {
		return v, fmt.Errorf("mount %s: %w", dev, err)
	}
	mounted = true
	rec.remove() // a mounted disk is found by List and freed by Eject
	e.did("mount")
	if err := e.admin.chown(ctx, mp, e.uid, e.gid); err != nil {
		return v, fmt.Errorf("chown %s: %w", mp, err)
	}
	if err := e.admin.chmod(ctx, mp, rootMode); err != nil {
		return v, fmt.Errorf("chmod %s: %w", mp, err)
	}
	v = ramdisk.Volume{
		Name: p.Name, MountPoint: mp, Device: dev, FS: ramdisk.ZRAM, Size: p.Size,
		Allocation: ramdisk.AllocOnWrite, Managed: true,
	}
	if !e.discard {
		v.Notes = append(v.Notes, ramdisk.Sayf("mounted without discard: deleting files does not give memory back until fstrim or eject"))
	}
	return v, nil
}

// hotAdd adds a zram device and returns its number. With a record, the
// kernel's answer goes straight into the record's device slot (see
// zram_records.go) and is read back from there; a device added by a
// hot_add that then failed is removed again, with its record, before the
// error is returned. Without a record (no records folder) it is read.
func (e *Engine) hotAdd(ctx context.Context, rec zramRecord) (int, error) {
	control := e.zramControl("hot_add")
	if rec.path == "" {
		out, err := e.admin.read(ctx, control)
		if err != nil {
			return -1, fmt.Errorf("zram hot_add: %w", err)
		}
		n, err := strconv.Atoi(strings.TrimSpace(out))
		if err != nil || n < 0 {
			return -1, fmt.Errorf("zram hot_add: %q is not a device number", strings.TrimSpace(out))
		}
		return n, nil
	}
	err := e.admin.readInto(ctx, control, rec.path, int64(len(rec.line())), deviceSlot)
	b, rerr := os.ReadFile(rec.path)
	got, ok := parseZramRecord(rec.path, string(b))
	switch {
	case rerr == nil && ok && got.dev >= 0 && err != nil:
		if ferr := e.removeZRAM(ctx, got.dev); ferr != nil {
			return -1, fmt.Errorf("zram hot_add: %w (and zram%d it added stays for the next create to free: %v)", err, got.dev, ferr)
		}
		rec.remove()
		return -1, fmt.Errorf("zram hot_add: %w", err)
	case err != nil:
		rec.remove()
		return -1, fmt.Errorf("zram hot_add: %w", err)
	case rerr != nil || !ok || got.dev < 0:
		// A device may have been added; the record (if readable) names
		// none, so nothing can be told: it stays for doctor to show.
		return -1, fmt.Errorf("zram hot_add: its answer is not in the record %s (%q)", rec.path, b)
	}
	return got.dev, nil
}

// formatZRAM chooses lz4 when the kernel has it, sizes zram N and makes
// ext4 on it.
func (e *Engine) formatZRAM(ctx context.Context, p ramdisk.Plan, n int) error {
	dev := "/dev/zram" + strconv.Itoa(n)
	if algos, rerr := os.ReadFile(e.zramAttr(n, "comp_algorithm")); rerr == nil && hasAlgorithm(string(algos), "lz4") {
		if err := e.admin.write(ctx, e.zramAttr(n, "comp_algorithm"), "lz4"); err != nil {
			return fmt.Errorf("zram%d comp_algorithm lz4: %w", n, err)
		}
	}
	if err := e.admin.write(ctx, e.zramAttr(n, "disksize"), strconv.FormatInt(int64(p.Size), 10)); err != nil {
		return fmt.Errorf("zram%d disksize %d: %w", n, int64(p.Size), err)
	}
	e.did("disksize")
	// -m 0: no blocks reserved for root on a disk that is all the user's.
	// lazy init off: the inode tables are zeroed now (zero pages cost zram
	// nothing) rather than by a kernel thread writing after the mount.
	if err := e.admin.run(ctx, "mkfs.ext4", "-q", "-F", "-L", zramLabel, "-m", "0",
		"-E", "lazy_itable_init=0,lazy_journal_init=0", dev); err != nil {
		return fmt.Errorf("mkfs.ext4 %s: %w", dev, err)
	}
	e.did("mkfs")
	return nil
}

// did tells the test hook that a step of a zram Create is done.
func (e *Engine) did(step string) {
	if e.step != nil {
		e.step(step)
	}
}

// hasAlgorithm reads comp_algorithm ("[lzo-rle] lzo lz4 zstd").
func hasAlgorithm(list, name string) bool {
	for _, a := range strings.Fields(list) {
		if strings.Trim(a, "[]") == name {
			return true
		}
	}
	return false
}

// removeZRAM resets zram N (freeing its memory) and hot-removes it. A
// device still open wraps syscall.EBUSY.
func (e *Engine) removeZRAM(ctx context.Context, n int) error {
	if err := e.admin.write(ctx, e.zramAttr(n, "reset"), "1"); err != nil {
		return fmt.Errorf("zram%d reset: %w", n, err)
	}
	if err := e.admin.write(ctx, e.zramControl("hot_remove"), strconv.Itoa(n)); err != nil {
		return fmt.Errorf("zram%d hot_remove: %w", n, err)
	}
	return nil
}

// freeZRAM runs after a zram disk's unmount: reset and remove the device,
// then the mount point. A device still held after a lazy unmount gets the
// detached marker instead, for sweepDetached.
func (e *Engine) freeZRAM(ctx context.Context, dev, mp string) error {
	n := zramDevice(dev)
	err := e.removeZRAM(ctx, n)
	if errors.Is(err, syscall.EBUSY) {
		_, uuid, serr := ext4Super(dev)
		if serr != nil {
			return fmt.Errorf("unmounted %s, but zram%d is still held and cannot be identified for freeing later: %w", mp, n, errors.Join(err, serr))
		}
		// The mount point may be the user's (it holds a cache fallback link):
		// whatever is in the marker's place goes first, never written through.
		os.Remove(filepath.Join(mp, detachedMarker))
		if werr := e.admin.write(ctx, filepath.Join(mp, detachedMarker), fmt.Sprintf("zram%d %s\n", n, uuid)); werr != nil {
			return fmt.Errorf("unmounted %s, but zram%d is still held: %w", mp, n, errors.Join(err, werr))
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("unmounted %s, but its memory is not freed (eject it again to retry): %w", mp, err)
	}
	e.dropMountPoint(ctx, mp)
	return nil
}

// finishZRAM completes an earlier eject of a zram disk whose unmount worked
// but whose device was not freed: the mount point is still there, nothing is
// mounted on it or on the device, and the device is RAMBar's (its ext4
// label, or the UUID in the detached marker). done is false when there is
// nothing to finish.
func (e *Engine) finishZRAM(ctx context.Context, ms []mountEntry, v ramdisk.Volume) (done bool, err error) {
	n := zramDevice(v.Device)
	if v.FS != ramdisk.ZRAM || n < 0 {
		return false, nil
	}
	mp := filepath.Clean(v.MountPoint)
	if st, err := os.Lstat(mp); err != nil || !st.IsDir() {
		return false, nil
	}
	if !e.orphan(ms, n, mp) {
		return false, nil
	}
	if err := e.removeZRAM(ctx, n); err != nil {
		if errors.Is(err, syscall.EBUSY) {
			maj, min := e.zramDevNumber(n)
			return true, &ramdisk.BusyError{Volume: v.Name, Holders: holders.Find(e.proc, maj, min, ""), Err: err}
		}
		return true, err
	}
	os.Remove(filepath.Join(mp, detachedMarker))
	e.dropMountPoint(ctx, mp)
	return true, nil
}

// orphan reports whether zram N is an unmounted RAMBar device that belonged
// at mp: its UUID matches mp's detached marker, or, without a marker, its
// label is RAMBar's.
func (e *Engine) orphan(ms []mountEntry, n int, mp string) bool {
	dev := "/dev/zram" + strconv.Itoa(n)
	for _, m := range ms {
		if m.Source == dev {
			return false
		}
	}
	label, uuid, err := ext4Super(dev)
	if err != nil {
		return false
	}
	if b, err := readDetachedMarker(mp); err == nil {
		f := strings.Fields(string(b))
		return len(f) == 2 && f[0] == "zram"+strconv.Itoa(n) && f[1] == uuid
	}
	return label == zramLabel
}

// sweepDetached frees the zram devices of disks that a forced eject left
// held, once nothing holds them. Only root can; failures wait for the next
// sweep.
func (e *Engine) sweepDetached(ctx context.Context, ms []mountEntry) {
	if !e.asRoot {
		return
	}
	root := e.realRoot()
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, de := range ents {
		mp := filepath.Join(root, de.Name())
		b, err := readDetachedMarker(mp)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b))
		if len(f) != 2 {
			continue
		}
		n := zramDevice("/dev/" + f[0])
		if n < 0 {
			continue
		}
		if _, err := os.Stat(e.zramAttr(n, "reset")); errors.Is(err, os.ErrNotExist) {
			os.Remove(filepath.Join(mp, detachedMarker)) // already gone
			e.dropMountPoint(ctx, mp)
			continue
		}
		if !e.orphan(ms, n, mp) {
			continue
		}
		if e.removeZRAM(ctx, n) == nil {
			os.Remove(filepath.Join(mp, detachedMarker))
			e.dropMountPoint(ctx, mp)
		}
	}
}

// zramDevNumber reads /sys/block/zramN/dev ("252:3").
func (e *Engine) zramDevNumber(n int) (uint32, uint32) {
	b, err := os.ReadFile(e.zramAttr(n, "dev"))
	if err != nil {
		return 0, 0
	}
	a, c, _ := strings.Cut(strings.TrimSpace(string(b)), ":")
	ma, _ := strconv.ParseUint(a, 10, 32)
	mi, _ := strconv.ParseUint(c, 10, 32)
	return uint32(ma), uint32(mi)
}

func (e *Engine) mmStat(n int) (mmStat, error) {
	b, err := os.ReadFile(e.zramAttr(n, "mm_stat"))
	if err != nil {
		return mmStat{}, fmt.Errorf("zram%d mm_stat: %w", n, err)
	}
	return parseMMStat(string(b))
}

// zramHeld is the memory all zram devices hold now.
func (e *Engine) zramHeld() ramdisk.Size {
	ents, err := filepath.Glob(filepath.Join(e.sys, "block", "zram*", "mm_stat"))
	if err != nil {
		return 0
	}
	var total ramdisk.Size
	for _, p := range ents {
		if b, err := os.ReadFile(p); err == nil {
			if mm, err := parseMMStat(string(b)); err == nil {
				total += ramdisk.Size(mm.MemUsedTotal)
			}
		}
	}
	return total
}

// ext4Super reads an ext4 superblock's label and UUID from dev (root only).
func ext4Super(dev string) (label, uuid string, err error) {
	f, err := os.Open(dev)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sb := make([]byte, 1024)
	if _, err := f.ReadAt(sb, 1024); err != nil && !errors.Is(err, io.EOF) {
		return "", "", fmt.Errorf("read superblock of %s: %w", dev, err)
	}
	return parseExt4Super(sb)
}

// parseExt4Super reads the label (s_volume_name, offset 0x78) and UUID
// (s_uuid, 0x68) of an ext2/3/4 superblock (magic 0xEF53 at 0x38).
func parseExt4Super(sb []byte) (label, uuid string, err error) {
	if len(sb) < 0x88 || binary.LittleEndian.Uint16(sb[0x38:]) != 0xEF53 {
		return "", "", errors.New("no ext4 superblock")
	}
	label = string(sb[0x78:0x88])
	if i := strings.IndexByte(label, 0); i >= 0 {
		label = label[:i]
	}
	return label, hex.EncodeToString(sb[0x68:0x78]), nil
}

// readDetachedMarker reads mp's detached marker: a file root wrote (the
// mount point may be the user's), not followed, bounded.
func readDetachedMarker(mp string) ([]byte, error) {
	path := filepath.Join(mp, detachedMarker)
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Uid != 0 || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%s: not root's marker", path)
	}
	return io.ReadAll(io.LimitReader(f, 256))
}
