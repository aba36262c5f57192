//go:build linux

package linux

import (
	"golang.org/x/sys/unix"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"rambar/i18n"
	"rambar/internal/holders"
	"rambar/internal/record"
	"rambar/internal/run"
	"rambar/ramdisk"
)

// defaultMountRoot is where disks are mounted unless WithMountRoot says
// otherwise.
const defaultMountRoot = "/mnt/rambar"

// mountSource is the mount source RAMBar gives its tmpfs mounts. It marks them as
// RAMBar's: List reports a tmpfs under the mount root with this source as
// Managed, and any other tmpfs there as hand-made.
const mountSource = "rambar"

// zramLabel is the ext4 label RAMBar gives its zram disks, the marker of a
// managed zram disk.
const zramLabel = "rambar"

// rootMode is the permission of a disk's root folder: private to its owner.
const rootMode os.FileMode = 0o700

// Engine is the Linux engine. Make it with New.
type Engine struct {
	r       run.Runner
	root    string
	discard bool
	uid     int
	gid     int
	admin   admin
	asRoot  bool
	proc    string // /proc
	sys     string // /sys
	now     func() time.Time
	records string // zram records ("" none), see zram_records.go
	// step, when set, is told each step of a zram Create as it is done
	// (tests kill the process there).
	step func(string)
}

var _ ramdisk.Engine = (*Engine)(nil)

// Option configures an Engine.
type Option func(*Engine)

// WithMountRoot mounts disks under dir instead of defaultMountRoot. The
// folder is made when the first disk is (mode 0755).
func WithMountRoot(dir string) Option {
	return func(e *Engine) {
		if dir != "" {
			e.root = filepath.Clean(dir)
		}
	}
}

// withOwner makes uid:gid the owner of new disks instead of the invoking
// user (see New).
func withOwner(uid, gid int) Option { return func(e *Engine) { e.uid, e.gid = uid, gid } }

// New returns the Linux engine. Tools (mkfs.ext4, and pkexec when not root)
// run through r.
//
// Disks belong to the user who asked for them: as root under sudo or
// pkexec, that is SUDO_UID/SUDO_GID or PKEXEC_UID (with that user's primary
// group); otherwise the current user. Their root folder is mode 0700.
func New(r run.Runner, opts ...Option) *Engine {
	e := &Engine{
		r: r, root: defaultMountRoot, discard: true,
		proc: "/proc", sys: "/sys", now: time.Now,
		asRoot: os.Geteuid() == 0,
	}
	e.uid, e.gid = invokingUser(os.Getenv)
	e.records = defaultZramRecords(e.asRoot, os.Getenv)
	if e.asRoot {
		e.admin = rootAdmin{r: r}
	} else {
		e.admin = pkexecAdmin{r: r}
	}
	for _, o := range opts {
		o(e)
	}
	return e
}

// invokingUser is the user a disk is made for (ramdisk.InvokerOf: the one
// rule): the one behind sudo or pkexec when running as root, else the
// current user.
func invokingUser(getenv func(string) string) (uid, gid int) {
	inv := ramdisk.InvokerOf(os.Geteuid(), getenv)
	return inv.UID, inv.GID
}

// Caps implements ramdisk.Engine. ZRAM is offered when the kernel has zram
// with hot_add (/sys/class/zram-control) and mkfs.ext4 is installed.
func (e *Engine) Caps() ramdisk.Caps {
	c := ramdisk.Caps{OS: "linux", FileSystems: []ramdisk.FileSystem{ramdisk.TmpFS}, MountRoot: e.root, KeepsMountPoints: true,
		CaseSensitiveNames: !record.NamesOf("linux").Folded} // names as Linux treats them (the one rule: internal/record)
	if e.zramAvailable() {
		c.FileSystems = append(c.FileSystems, ramdisk.ZRAM)
	}
	if !e.asRoot {
		c.NeedsAdmin = append([]ramdisk.FileSystem(nil), c.FileSystems...)
	}
	return c
}

// Create implements ramdisk.Engine. It makes the mount point (and the mount
// root) when missing and mounts:
//
//	tmpfs: mount -t tmpfs -o size=BYTES,mode=0700,uid=U,gid=G,nosuid,nodev rambar ROOT/NAME
//	zram:  hot_add, lz4, disksize, mkfs.ext4 -L rambar, mount -o discard,nosuid,nodev
//
// --noexec adds noexec. A tmpfs at a folder of the user's choice
// (Plan.Options.MountPoint) is mounted from "rambar:NAME" so List finds it
// there; its folder stays when it is ejected.
//
// Partial failure: a mount point Create made is removed again, and a zram
// device it added is reset and removed, before the error is returned.
func (e *Engine) Create(ctx context.Context, p ramdisk.Plan) (ramdisk.Volume, error) {
	if err := ramdisk.ValidateName(p.Name); err != nil {
		return ramdisk.Volume{}, err
	}
	if p.Size < ramdisk.MinSize || p.Size > ramdisk.MaxSize {
		return ramdisk.Volume{}, i18n.Errorf("%w: %s is outside %s..%s", ramdisk.ErrSize, p.Size, ramdisk.MinSize, ramdisk.MaxSize)
	}
	fs := p.FS
	if fs == "" {
		fs = ramdisk.TmpFS
	}
	if !e.Caps().Supports(fs) {
		return ramdisk.Volume{}, i18n.Errorf("%w: %s on this Linux machine", ramdisk.ErrUnsupported, fs.Label())
	}
	mp := filepath.Join(e.root, p.Name)
	custom := customMountPoint(p, e.root)
	if p.MountPoint != "" && filepath.Clean(p.MountPoint) != mp && custom == "" {
		return ramdisk.Volume{}, fmt.Errorf("plan mounts %s at %s, outside the mount root %s", p.Name, p.MountPoint, e.root)
	}
	if custom != "" {
		if err := checkCustom(p, fs, custom); err != nil {
			return ramdisk.Volume{}, err
		}
	} else if err := e.admin.mkdirAll(ctx, e.root, 0o755); err != nil {
		return ramdisk.Volume{}, fmt.Errorf("mkdir %s: %w", e.root, err)
	}
	mp = filepath.Join(e.realRoot(), p.Name)
	if custom != "" {
		mp = custom
	}
	ms, err := e.mounts()
	if err != nil {
		return ramdisk.Volume{}, err
	}
	if m, ok := mountAt(ms, mp); ok {
		return ramdisk.Volume{}, fmt.Errorf("%w: %s (%s from %s)", ramdisk.ErrExists, mp, m.FSType, m.Source)
	}
	made, err := e.makeMountPoint(ctx, mp, p.CacheFallback != "")
	if err != nil {
		return ramdisk.Volume{}, err
	}
	var v ramdisk.Volume
	if p.CacheFallback != "" {
		err = e.leaveFallback(ctx, mp, p.CacheFallback)
	}
	var target *os.File
	if err == nil {
		target, err = openMountTarget(mp, e.uid)
	}
	if err == nil {
		switch fs {
		case ramdisk.ZRAM:
			v, err = e.createZRAM(ctx, p, target, mp)
		default:
			v, err = e.createTmpFS(ctx, p, target, mp, tmpfsSource(p, custom))
		}
		target.Close()
	}
	if err != nil {
		if made && p.CacheFallback != "" {
			os.Remove(filepath.Join(mp, ramdisk.FallbackLink))
		}
		if made {
			if rerr := e.admin.rmdir(ctx, mp); rerr != nil {
				err = errors.Join(err, fmt.Errorf("remove mount point %s: %w", mp, rerr))
			}
		}
		return ramdisk.Volume{}, err
	}
	return v, nil
}

// makeMountPoint makes ROOT/NAME (mode 0700) and reports whether it did;
// owned, it is the disk owner's (it is to hold a fallback link), in the
// same one privileged step. An empty folder that is already there, or one
// holding only the owner's fallback link (ramdisk.CheckEmptyMountPoint), is
// used as it is; anything else there is ErrExists.
func (e *Engine) makeMountPoint(ctx context.Context, mp string, owned bool) (bool, error) {
	var err error
	if owned {
		err = e.admin.mkdirOwned(ctx, mp, rootMode, e.uid, e.gid)
	} else {
		err = e.admin.mkdir(ctx, mp, rootMode)
	}
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, os.ErrExist) {
		return false, fmt.Errorf("mkdir %s: %w", mp, err)
	}
	st, serr := os.Lstat(mp)
	if serr != nil || !st.IsDir() {
		return false, fmt.Errorf("%w: %s is there and is not a folder", ramdisk.ErrMountPointTaken, mp)
	}
	if err := ramdisk.CheckEmptyMountPoint(mp, e.uid); err != nil {
		return false, fmt.Errorf("%w: %s is there and %v", ramdisk.ErrMountPointTaken, mp, err)
	}
	return false, nil
}

func (e *Engine) createTmpFS(ctx context.Context, p ramdisk.Plan, target *os.File, mp, source string) (ramdisk.Volume, error) {
	opts := []string{
		"size=" + strconv.FormatInt(int64(p.Size), 10),
		fmt.Sprintf("mode=%04o", rootMode.Perm()),
		"uid=" + strconv.Itoa(e.uid), "gid=" + strconv.Itoa(e.gid),
		"nosuid", "nodev",
	}
	opts = append(opts, optionFlags(p)...)
	if err := e.mount(ctx, source, target, mp, "tmpfs", opts); err != nil {
		return ramdisk.Volume{}, fmt.Errorf("mount tmpfs %s: %w", mp, err)
	}
	return ramdisk.Volume{
		Name: p.Name, MountPoint: mp, Device: source, FS: ramdisk.TmpFS, Size: p.Size,
		Allocation: ramdisk.AllocOnWrite, Managed: true,
	}, nil
}

// Eject implements ramdisk.Engine. It unmounts v's mount point; if processes
// hold it, nothing changes and the *BusyError names them (from
// /proc/PID/{fd,cwd,root,maps}). With force it unmounts lazily
// (MNT_DETACH): the disk leaves the file tree at once and its memory is
// freed when the last holder lets go. The empty mount point is removed; one
// whose fallback link leads to a folder stays (dropMountPoint).
//
// zram: after the unmount the device is reset and hot-removed, which frees
// its memory. When a forced eject leaves the device held, the mount point
// keeps a marker and the device is freed by a later List or Eject once the
// holders are gone. If the reset fails for another reason, Eject returns the
// error and a later Eject of the same volume finishes the job.
func (e *Engine) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	ms, err := e.mounts()
	if err != nil {
		return err
	}
	mp := filepath.Clean(v.MountPoint)
	m, ok := mountAt(ms, mp)
	if !ok {
		if done, err := e.finishZRAM(ctx, ms, v); done {
			return err
		}
		return i18n.Errorf("%s: %w (nothing is mounted at %s)", v.Name, ramdisk.ErrNotFound, mp)
	}
	fs, ok := kind(m)
	if !ok {
		return i18n.Errorf("%s: %w (%s is %s from %s, not a RAM disk)", v.Name, ramdisk.ErrNotFound, mp, m.FSType, m.Source)
	}
	if err := e.admin.unmount(ctx, mp, force); err != nil {
		if errors.Is(err, syscall.EBUSY) {
			return &ramdisk.BusyError{Volume: v.Name, Holders: holders.Find(e.proc, m.Major, m.Minor, ""), Err: err}
		}
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
			return fmt.Errorf("%s: %w: %w", v.Name, ramdisk.ErrNotFound, err)
		}
		return err
	}
	if fs == ramdisk.ZRAM {
		return e.freeZRAM(ctx, m.Source, mp)
	}
	if _, custom := customMount(m); !custom {
		e.dropMountPoint(ctx, mp)
	}
	return nil
}

// mount mounts fstype from source on the folder target at mp (admin.mount)
// and checks the mount is at mp, where the folder was checked. As root
// mountOnto has checked already; through pkexec the folder may have been
// moved between the check and the mount: the mount is then undone where
// it landed (the one new mount of source, when there is exactly one).
func (e *Engine) mount(ctx context.Context, source string, target *os.File, mp, fstype string, opts []string) error {
	if e.asRoot {
		return e.admin.mount(ctx, source, target, mp, fstype, opts)
	}
	before, err := e.mounts()
	if err != nil {
		return err
	}
	if err := e.admin.mount(ctx, source, target, mp, fstype, opts); err != nil {
		return err
	}
	settle(target)
	after, err := e.mounts()
	if err != nil {
		return err
	}
	old := map[int]bool{}
	for _, m := range before {
		old[m.ID] = true
	}
	var moved []mountEntry
	for _, m := range after {
		switch {
		case old[m.ID] || m.Source != source:
		case m.MountPoint == mp:
			return nil
		default:
			moved = append(moved, m)
		}
	}
	if len(moved) != 1 {
		return fmt.Errorf("mount %s: the disk is not there after mounting (%d new mounts of %s elsewhere)", mp, len(moved), source)
	}
	if err := e.admin.unmount(ctx, moved[0].MountPoint, true); err != nil {
		return fmt.Errorf("mount %s: the folder was moved to %s while it was being mounted, and unmounting it there failed: %w", mp, moved[0].MountPoint, err)
	}
	return fmt.Errorf("mount %s: the folder was moved to %s while it was being mounted; the disk was unmounted again", mp, moved[0].MountPoint)
}

// syncFS flushes one mounted file system's dirty pages (syncfs(2)); errors
// only mean the figures that follow are a little stale.
func syncFS(dir string) {
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	defer f.Close()
	unix.Syncfs(int(f.Fd()))
}
