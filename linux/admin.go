//go:build linux

package linux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"rambar/i18n"
	"rambar/internal/run"
	"rambar/ramdisk"
)

// admin does the steps that need root. As root they are system calls; for a
// desktop user each is one `pkexec TOOL ARGS` (argv, never a shell string),
// so polkit asks for the password.
type admin interface {
	// mount mounts fstype from source on the folder target, opened by
	// openMountTarget (path is where it is: for words, and to check the
	// mount landed there). opts mixes flag words (nosuid, nodev, noexec,
	// ro) and file system options (size=, discard).
	mount(ctx context.Context, source string, target *os.File, path, fstype string, opts []string) error
	// unmount unmounts target; lazy detaches it now and frees it when the
	// last user lets go (MNT_DETACH). A busy target wraps syscall.EBUSY.
	unmount(ctx context.Context, target string, lazy bool) error
	// bind mounts the folder source at target too (mount --bind, not
	// recursive); private makes the new mount private, so mounts made on
	// source later do not show at target (mount --make-private).
	bind(ctx context.Context, source, target string, private bool) error
	mkdirAll(ctx context.Context, dir string, mode os.FileMode) error
	// mkdir makes one folder; an existing one wraps os.ErrExist.
	mkdir(ctx context.Context, dir string, mode os.FileMode) error
	// mkdirOwned is mkdir, the folder then owned by uid:gid (one step).
	mkdirOwned(ctx context.Context, dir string, mode os.FileMode, uid, gid int) error
	rmdir(ctx context.Context, dir string) error
	chown(ctx context.Context, path string, uid, gid int) error
	chmod(ctx context.Context, path string, mode os.FileMode) error
	// write writes data to a file (sysfs, or a new marker file). A busy
	// device (zram reset) wraps syscall.EBUSY.
	write(ctx context.Context, path, data string) error
	// read reads a file only root may read (zram-control/hot_add).
	read(ctx context.Context, path string) (string, error)
	// readInto reads up to n bytes of src (zram-control/hot_add) straight
	// into the existing file dst at offset off, in one step that nothing
	// can stop half way for this process (root: one sendfile; a desktop
	// user: one pkexec dd, which outlives this process). dst is not
	// followed if it is a symlink.
	readInto(ctx context.Context, src, dst string, off int64, n int) error
	// run runs a tool (mkfs.ext4).
	run(ctx context.Context, argv ...string) error
}

// flagWords are the mount options that are mount(2) flags, not file system
// data.
var flagWords = map[string]uintptr{
	"ro": syscall.MS_RDONLY, "nosuid": syscall.MS_NOSUID, "nodev": syscall.MS_NODEV,
	"noexec": syscall.MS_NOEXEC, "noatime": syscall.MS_NOATIME, "relatime": syscall.MS_RELATIME,
}

// splitOpts separates mount(2) flags from the data string.
func splitOpts(opts []string) (uintptr, string) {
	var flags uintptr
	var data []string
	for _, o := range opts {
		if f, ok := flagWords[o]; ok {
			flags |= f
			continue
		}
		data = append(data, o)
	}
	return flags, strings.Join(data, ",")
}

// rootAdmin is the engine running as root: system calls.
type rootAdmin struct{ r run.Runner }

func (a rootAdmin) mount(_ context.Context, source string, target *os.File, path, fstype string, opts []string) error {
	return mountOnto(source, target, path, fstype, opts)
}

func (a rootAdmin) unmount(_ context.Context, target string, lazy bool) error {
	flags := 0
	op := "umount"
	if lazy {
		flags, op = syscall.MNT_DETACH, "umount --lazy"
	}
	if err := syscall.Unmount(target, flags); err != nil {
		return &os.PathError{Op: op, Path: target, Err: err}
	}
	return nil
}

// bind mounts through descriptors: both folders are opened first with no
// symlink followed in any part of their paths, and mount(2) is given their
// /proc/self/fd names, so a folder swapped for a symlink meanwhile (the
// user's own folder, under sudo) never sends root's mount elsewhere.
func (a rootAdmin) bind(_ context.Context, source, target string, private bool) error {
	src, err := pinDir(source)
	if err != nil {
		return err
	}
	defer unix.Close(src)
	dst, err := pinDir(target)
	if err != nil {
		return err
	}
	defer unix.Close(dst)
	if err := syscall.Mount(fdPath(src), fdPath(dst), "", syscall.MS_BIND, ""); err != nil {
		return &os.PathError{Op: "mount --bind " + source, Path: target, Err: err}
	}
	if !private {
		return nil
	}
	// The new mount, opened again, must be the bind of source just made.
	top, err := pinDir(target)
	var st, want unix.Stat_t
	if err == nil && (unix.Fstat(top, &st) != nil || unix.Fstat(src, &want) != nil || st.Dev != want.Dev || st.Ino != want.Ino) {
		err = errors.New("it is not the bind just made")
	}
	if err == nil {
		err = syscall.Mount("", fdPath(top), "", syscall.MS_PRIVATE, "")
	}
	if err != nil && top >= 0 {
		syscall.Unmount(fdPath(top), syscall.MNT_DETACH)
	}
	if top >= 0 {
		unix.Close(top)
	}
	if err != nil {
		return &os.PathError{Op: "mount --make-private", Path: target, Err: err}
	}
	return nil
}

// pinDir opens dir as an O_PATH descriptor, following no symlink in any
// part of its path.
func pinDir(dir string) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		return -1, &os.PathError{Op: "open (no symlink followed)", Path: dir, Err: err}
	}
	return fd, nil
}

// fdPath is the name mount(2) resolves to the folder fd holds.
func fdPath(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }

func (a rootAdmin) mkdirAll(_ context.Context, dir string, mode os.FileMode) error {
	return os.MkdirAll(dir, mode)
}

func (a rootAdmin) mkdir(_ context.Context, dir string, mode os.FileMode) error {
	if err := os.Mkdir(dir, mode); err != nil {
		return err
	}
	// Mkdir's mode passes through the umask; the mount point must be exact.
	return os.Chmod(dir, mode)
}

func (a rootAdmin) mkdirOwned(ctx context.Context, dir string, mode os.FileMode, uid, gid int) error {
	if err := a.mkdir(ctx, dir, mode); err != nil {
		return err
	}
	return os.Lchown(dir, uid, gid)
}

func (a rootAdmin) rmdir(_ context.Context, dir string) error { return syscall.Rmdir(dir) }

// chown never follows a link at path: one swapped in after a check (in a
// mount root the user owns) would hand the user what it names.
func (a rootAdmin) chown(_ context.Context, path string, uid, gid int) error {
	return os.Lchown(path, uid, gid)
}

func (a rootAdmin) chmod(_ context.Context, path string, mode os.FileMode) error {
	return os.Chmod(path, mode)
}

func (a rootAdmin) write(_ context.Context, path, data string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(data); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

func (a rootAdmin) read(_ context.Context, path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

func (a rootAdmin) readInto(_ context.Context, src, dst string, off int64, n int) error {
	out, err := os.OpenFile(dst, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer out.Close()
	if _, err := out.Seek(off, io.SeekStart); err != nil {
		return fmt.Errorf("seek %s: %w", dst, err)
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	got, err := unix.Sendfile(int(out.Fd()), int(in.Fd()), nil, n)
	if errors.Is(err, syscall.EINVAL) && got <= 0 {
		// A kernel that cannot splice from sysfs refuses before reading:
		// read, then write (a kill between the two loses the answer).
		b := make([]byte, n)
		m, rerr := in.Read(b)
		if rerr != nil {
			return fmt.Errorf("read %s: %w", src, rerr)
		}
		if _, err := out.Write(b[:m]); err != nil {
			return fmt.Errorf("write %s: %w", dst, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("sendfile %s to %s: %w", src, dst, err)
	}
	return nil
}

func (a rootAdmin) run(ctx context.Context, argv ...string) error {
	_, err := a.r.Run(ctx, run.Cmd{Argv: argv})
	return err
}

// pkexecAdmin is the engine running as a desktop user: every step is
// `pkexec /abs/tool args`.
type pkexecAdmin struct{ r run.Runner }

// pkexec exit codes (pkexec(1)): 126 the authentication dialog was
// dismissed, 127 not authorized or no authentication agent.
const (
	pkexecDismissed     = 126
	pkexecNotAuthorized = 127
)

// do runs `pkexec TOOL ARGS` with stdin (nil: none; an *os.File is the
// tool's own standard input).
func (a pkexecAdmin) do(ctx context.Context, stdin io.Reader, argv ...string) (run.Result, error) {
	tool, err := run.Resolve(argv[0])
	if err != nil {
		return run.Result{}, fmt.Errorf("%s: %w", argv[0], err)
	}
	c := run.Cmd{Argv: append([]string{"pkexec", tool}, argv[1:]...), Stdin: stdin}
	res, err := a.r.Run(ctx, c)
	return res, pkexecError(err)
}

// pkexecError maps pkexec's own failures onto the sentinels, keeping its
// words: not installed or not authorized is ErrNeedsAdmin, a dismissed
// dialog ErrCancelled. The tool's failures pass through.
func pkexecError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, run.ErrToolMissing) {
		return i18n.Errorf("%w: not running as root and pkexec is not installed; run with sudo or install polkit (pkexec): %v", ramdisk.ErrNeedsAdmin, err)
	}
	switch run.ExitCode(err) {
	case pkexecDismissed:
		return fmt.Errorf("%w: the password dialog was dismissed: %w", ramdisk.ErrCancelled, err)
	case pkexecNotAuthorized:
		return i18n.Errorf("%w: pkexec refused (not authorized, or no polkit agent; run with sudo instead): %w", ramdisk.ErrNeedsAdmin, err)
	}
	return err
}

// mount is `pkexec mount --no-canonicalize ... SOURCE /proc/self/fd/0`
// with the folder as mount's standard input: mount(2) then takes the
// folder itself, never a path someone could change meanwhile.
func (a pkexecAdmin) mount(ctx context.Context, source string, target *os.File, path, fstype string, opts []string) error {
	_, err := a.do(ctx, target, "mount", "--no-canonicalize", "-t", fstype, "-o", strings.Join(opts, ","), "--", source, "/proc/self/fd/0")
	if err != nil {
		return fmt.Errorf("mount %s at %s: %w", source, path, err)
	}
	return nil
}

func (a pkexecAdmin) unmount(ctx context.Context, target string, lazy bool) error {
	argv := []string{"umount"}
	if lazy {
		argv = append(argv, "--lazy")
	}
	_, err := a.do(ctx, nil, append(argv, "--", target)...)
	var re *run.Error
	if errors.As(err, &re) && bytes.Contains(re.Stderr, []byte("busy")) {
		return fmt.Errorf("%w (%w)", syscall.EBUSY, err)
	}
	if errors.As(err, &re) && bytes.Contains(re.Stderr, []byte("not mounted")) {
		return fmt.Errorf("%w (%w)", syscall.EINVAL, err)
	}
	return err
}

func (a pkexecAdmin) bind(ctx context.Context, source, target string, private bool) error {
	if _, err := a.do(ctx, nil, "mount", "--bind", "--", source, target); err != nil {
		return err
	}
	if !private {
		return nil
	}
	if _, err := a.do(ctx, nil, "mount", "--make-private", "--", target); err != nil {
		a.unmount(ctx, target, true)
		return err
	}
	return nil
}

func (a pkexecAdmin) mkdirAll(ctx context.Context, dir string, mode os.FileMode) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	_, err := a.do(ctx, nil, "mkdir", "-p", "-m", strconv.FormatUint(uint64(mode.Perm()), 8), "--", dir)
	return err
}

func (a pkexecAdmin) mkdir(ctx context.Context, dir string, mode os.FileMode) error {
	if _, err := os.Lstat(dir); err == nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: os.ErrExist}
	}
	_, err := a.do(ctx, nil, "mkdir", "-m", strconv.FormatUint(uint64(mode.Perm()), 8), "--", dir)
	return err
}

// mkdirOwned is `install -d -m MODE -o UID -g GID -- DIR`: one prompt.
func (a pkexecAdmin) mkdirOwned(ctx context.Context, dir string, mode os.FileMode, uid, gid int) error {
	if _, err := os.Lstat(dir); err == nil {
		return &os.PathError{Op: "mkdir", Path: dir, Err: os.ErrExist}
	}
	_, err := a.do(ctx, nil, "install", "-d", "-m", strconv.FormatUint(uint64(mode.Perm()), 8),
		"-o", strconv.Itoa(uid), "-g", strconv.Itoa(gid), "--", dir)
	return err
}

func (a pkexecAdmin) rmdir(ctx context.Context, dir string) error {
	_, err := a.do(ctx, nil, "rmdir", "--", dir)
	return err
}

func (a pkexecAdmin) chown(ctx context.Context, path string, uid, gid int) error {
	_, err := a.do(ctx, nil, "chown", "-h", fmt.Sprintf("%d:%d", uid, gid), "--", path) // -h: as rootAdmin's, never through a link
	return err
}

func (a pkexecAdmin) chmod(ctx context.Context, path string, mode os.FileMode) error {
	_, err := a.do(ctx, nil, "chmod", strconv.FormatUint(uint64(mode.Perm()), 8), "--", path)
	return err
}

func (a pkexecAdmin) write(ctx context.Context, path, data string) error {
	// tee writes stdin to the file; its copy on stdout is dropped.
	_, err := a.do(ctx, strings.NewReader(data), "tee", "--", path)
	var re *run.Error
	if errors.As(err, &re) && bytes.Contains(re.Stderr, []byte("busy")) {
		return fmt.Errorf("%w (%w)", syscall.EBUSY, err)
	}
	return err
}

func (a pkexecAdmin) read(ctx context.Context, path string) (string, error) {
	res, err := a.do(ctx, nil, "cat", "--", path)
	return string(res.Stdout), err
}

// readInto is `pkexec dd`: it reads src and writes dst in one privileged
// process, which finishes even if this one is killed.
func (a pkexecAdmin) readInto(ctx context.Context, src, dst string, off int64, n int) error {
	_, err := a.do(ctx, nil, "dd", "if="+src, "of="+dst, "bs="+strconv.Itoa(n), "count=1", "seek="+strconv.FormatInt(off, 10),
		"oflag=seek_bytes,nofollow", "conv=notrunc", "status=none")
	return err
}

func (a pkexecAdmin) run(ctx context.Context, argv ...string) error {
	_, err := a.do(ctx, nil, argv...)
	return err
}
