//go:build linux

package linux

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"rambar/i18n"
	"rambar/ramdisk"
)

// A disk is mounted on the folder that was checked, not on whatever its
// path leads to a moment later: openMountTarget walks from / to the mount
// point through descriptors (O_PATH, O_NOFOLLOW: no symbolic link is ever
// followed), checks each folder it meets with fstat against the rule of
// ramdisk.CheckPathSteps (no one but root and the disk's user can put
// anything in the disk's way), and the mount goes onto that descriptor:
// as root with the new mount API (fsopen, fsconfig, fsmount, move_mount to
// the descriptor), through pkexec by `mount --no-canonicalize ...
// /proc/self/fd/0` with the folder as mount's standard input. A folder that
// was moved meanwhile is found by where the new mount landed, and the mount
// is undone.

// openMountTarget opens the folder mp (absolute, clean, no symbolic link
// in it) to mount on, for the disk's user uid, and checks it holds nothing
// but uid's fallback link.
func openMountTarget(mp string, uid int) (*os.File, error) {
	if !filepath.IsAbs(mp) || filepath.Clean(mp) != mp || mp == "/" {
		return nil, fmt.Errorf("mount at %s: not a clean absolute path", mp)
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("mount at %s: open /: %w", mp, err)
	}
	steps := make([]ramdisk.PathStep, 0, 8)
	step := func(fd int, path string) error {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fmt.Errorf("fstat %s: %w", path, err)
		}
		steps = append(steps, ramdisk.PathStep{Path: path, UID: int(st.Uid), Mode: fileMode(st.Mode)})
		return nil
	}
	if err := step(fd, "/"); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("mount at %s: %w", mp, err)
	}
	comps := strings.Split(mp[1:], "/")
	unreadable := false
	for i, c := range comps {
		path := "/" + strings.Join(comps[:i+1], "/")
		flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(comps)-1 {
			flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		}
		nfd, err := unix.Openat(fd, c, flags, 0)
		if errors.Is(err, unix.EACCES) && i == len(comps)-1 {
			// A desktop user's mount point made by pkexec is root's and
			// closed to them: held by O_PATH, unread (it was just made,
			// or checked through pkexec before).
			nfd, err = unix.Openat(fd, c, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			unreadable = err == nil
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			var st unix.Stat_t
			if unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
				err = unix.ELOOP
			}
		}
		unix.Close(fd)
		switch {
		case errors.Is(err, unix.ELOOP):
			return nil, fmt.Errorf("mount at %s refused: %s is a symbolic link", mp, path)
		case errors.Is(err, unix.ENOTDIR):
			return nil, fmt.Errorf("mount at %s refused: %s is not a folder", mp, path)
		case err != nil:
			return nil, fmt.Errorf("mount at %s: open %s: %w", mp, path, err)
		}
		fd = nfd
		if err := step(fd, path); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("mount at %s: %w", mp, err)
		}
		if steps[len(steps)-1].Mode&os.ModeSymlink != 0 || !steps[len(steps)-1].Mode.IsDir() {
			break // CheckPathSteps says which
		}
	}
	f := os.NewFile(uintptr(fd), mp)
	if why := ramdisk.CheckPathSteps(steps, uid); why != "" {
		f.Close()
		return nil, fmt.Errorf("mount at %s refused: %s", mp, why)
	}
	if unreadable {
		return f, nil
	}
	if err := ramdisk.CheckEmptyDir(f, uid); err != nil {
		f.Close()
		return nil, i18n.Errorf("%w: %s is there and is not empty: %v", ramdisk.ErrExists, mp, err)
	}
	return f, nil
}

// fileMode turns st_mode into an fs.FileMode: type, permissions, sticky.
func fileMode(m uint32) os.FileMode {
	mode := os.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		mode |= os.ModeDir
	case unix.S_IFLNK:
		mode |= os.ModeSymlink
	case unix.S_IFREG:
	default:
		mode |= os.ModeIrregular
	}
	if m&unix.S_ISVTX != 0 {
		mode |= os.ModeSticky
	}
	return mode
}

// mountAttrs maps mount(2) flags onto fsmount's MOUNT_ATTR_* attributes.
func mountAttrs(flags uintptr) int {
	attrs := 0
	for f, a := range map[uintptr]int{syscall.MS_RDONLY: unix.MOUNT_ATTR_RDONLY, syscall.MS_NOSUID: unix.MOUNT_ATTR_NOSUID,
		syscall.MS_NODEV: unix.MOUNT_ATTR_NODEV, syscall.MS_NOEXEC: unix.MOUNT_ATTR_NOEXEC, syscall.MS_NOATIME: unix.MOUNT_ATTR_NOATIME} {
		if flags&f != 0 {
			attrs |= a
		}
	}
	return attrs
}

// mountOnto mounts fstype from source onto the folder target (path is its
// path, for words and the check of where the mount landed) with the new
// mount API; where the kernel has none (before 5.2), mount(2) onto
// /proc/self/fd/N, which is the same folder.
func mountOnto(source string, target *os.File, path, fstype string, opts []string) error {
	flags, data := splitOpts(opts)
	what := fmt.Sprintf("mount -t %s -o %s %s", fstype, strings.Join(opts, ","), source)
	fsfd, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC)
	if errors.Is(err, unix.ENOSYS) {
		if err := syscall.Mount(source, "/proc/self/fd/"+strconv.Itoa(int(target.Fd())), fstype, flags, data); err != nil {
			return &os.PathError{Op: what, Path: path, Err: err}
		}
		return nil
	}
	if err != nil {
		return &os.PathError{Op: what + ": fsopen", Path: path, Err: err}
	}
	defer unix.Close(fsfd)
	config := func(err error) error {
		if err == nil {
			return nil
		}
		return &os.PathError{Op: what, Path: path, Err: fmt.Errorf("%w%s", err, fsLog(fsfd))}
	}
	if err := config(unix.FsconfigSetString(fsfd, "source", source)); err != nil {
		return err
	}
	for _, o := range strings.Split(data, ",") {
		if o == "" {
			continue
		}
		if k, v, ok := strings.Cut(o, "="); ok {
			err = unix.FsconfigSetString(fsfd, k, v)
		} else {
			err = unix.FsconfigSetFlag(fsfd, o)
		}
		if err := config(err); err != nil {
			return err
		}
	}
	if err := config(unix.FsconfigCreate(fsfd)); err != nil {
		return err
	}
	mfd, err := unix.Fsmount(fsfd, unix.FSMOUNT_CLOEXEC, mountAttrs(flags))
	if err != nil {
		return config(err)
	}
	defer unix.Close(mfd)
	if err := unix.MoveMount(mfd, "", int(target.Fd()), "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return &os.PathError{Op: what + ": move_mount", Path: path, Err: err}
	}
	settle(target)
	if at, err := landedAt(mfd); err != nil || at != path {
		// The folder was moved after it was checked: the disk is not
		// where it was asked to be, so it goes again.
		uerr := unix.Unmount("/proc/self/fd/"+strconv.Itoa(mfd), unix.MNT_DETACH)
		if err == nil {
			err = fmt.Errorf("the folder was moved to %s while it was being mounted; the disk was unmounted again", at)
		}
		if uerr != nil {
			err = fmt.Errorf("%w, and unmounting it failed: %v", err, uerr)
		}
		return &os.PathError{Op: what, Path: path, Err: err}
	}
	return nil
}

// settle waits for any rename in the folder holding target that began
// before target became a mount point. Such a rename checked that the
// folder it moves is not a mount point before the mount was attached, and
// a rename within one folder does not lock the folder it moves, so it may
// still move it after the mount; it holds the lock of the folder it
// renames in throughout, which a lookup of a name not there (not in the
// dentry cache: new each time) waits for. Renames after it see the mount
// and fail (EBUSY).
func settle(target *os.File) {
	parent, err := unix.Openat(int(target.Fd()), "..", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	defer unix.Close(parent)
	var st unix.Stat_t
	var b [8]byte
	rand.Read(b[:])
	unix.Fstatat(parent, ".rambar-settle-"+hex.EncodeToString(b[:]), &st, unix.AT_SYMLINK_NOFOLLOW)
}

// landedAt is where the mount mfd is in this process's mount table.
func landedAt(mfd int) (string, error) {
	var st unix.Statx_t
	if err := unix.Statx(mfd, "", unix.AT_EMPTY_PATH, unix.STATX_MNT_ID, &st); err != nil {
		return "", fmt.Errorf("statx: %w", err)
	}
	if st.Mask&unix.STATX_MNT_ID == 0 {
		return "", errors.New("statx gave no mount ID")
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	ms, err := parseMountInfo(f)
	if err != nil {
		return "", err
	}
	for _, m := range ms {
		if uint64(m.ID) == st.Mnt_id {
			return m.MountPoint, nil
		}
	}
	return "", fmt.Errorf("mount %d is not in the mount table", st.Mnt_id)
}

// fsLog reads what the kernel said about a failed fsconfig (": e tmpfs:
// Bad value for 'size'"), "" when nothing.
func fsLog(fsfd int) string {
	var out []string
	buf := make([]byte, 512)
	for i := 0; i < 8; i++ {
		n, err := unix.Read(fsfd, buf)
		if err != nil || n <= 0 {
			break
		}
		out = append(out, string(bytes.TrimSpace(buf[:n])))
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}
