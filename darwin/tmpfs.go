package darwin

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"rambar/ramdisk"
)

// The AppleScripts run as administrator. They are constants: every value
// (mount point, size, owner) arrives as an argument of the run handler and
// is put into the shell command with AppleScript's own `quoted form of`, so
// no user text is ever part of script source or of an unquoted shell word.
// A leading "--" argument (the end of osascript's options) is dropped.
//
// mount_tmpfs takes a path, not a folder already opened: what keeps
// another user from swapping the mount point for a symbolic link between
// the check and the mount is the plan's rule that no one but root and the
// disk's user can write any folder on the way (ramdisk.CheckPathSteps);
// chown and chmod after the mount never follow a link (-h).
var (
	mountScript = []string{
		`on run argv`,
		`if (count of argv) > 0 and item 1 of argv is "--" then set argv to rest of argv`,
		`set mp to quoted form of item 1 of argv`,
		`do shell script "/bin/mkdir -p " & mp & " && /sbin/mount_tmpfs -s " & quoted form of item 2 of argv & " " & mp & " && /usr/sbin/chown -h " & quoted form of item 3 of argv & " " & mp & " && /bin/chmod -h 700 " & mp with administrator privileges`,
		`end run`,
	}
	umountScript = []string{
		`on run argv`,
		`if (count of argv) > 0 and item 1 of argv is "--" then set argv to rest of argv`,
		`set mp to quoted form of item 2 of argv`,
		`if item 1 of argv is "force" then`,
		`do shell script "/sbin/umount -f " & mp & " && { /bin/rmdir " & mp & " || true; }" with administrator privileges`,
		`else`,
		`do shell script "/sbin/umount " & mp & " && { /bin/rmdir " & mp & " || true; }" with administrator privileges`,
		`end if`,
		`end run`,
	}
)

// osascriptArgv builds `osascript -e LINE... -- ARGS...`: script lines as -e
// statements, values only as arguments.
func osascriptArgv(script []string, args ...string) []string {
	argv := []string{"osascript"}
	for _, l := range script {
		argv = append(argv, "-e", l)
	}
	return append(append(argv, "--"), args...)
}

// adminErr maps osascript's failure: -128 is ErrCancelled, -60007
// ErrNeedsAdmin; anything else keeps the command's words.
func adminErr(what string, err error, stderr []byte) error {
	text, code, ok := parseOsascriptError(stderr)
	switch {
	case ok && code == osaCancelled:
		return fmt.Errorf("%s: %w: the administrator prompt was cancelled", what, ramdisk.ErrCancelled)
	case ok && code == osaBadPassword:
		return fmt.Errorf("%s: %w: %s", what, ramdisk.ErrNeedsAdmin, text)
	case ok:
		return fmt.Errorf("%s: %s (exit %d)", what, text, code)
	}
	return fmt.Errorf("%s: %w", what, toolErr(err))
}

// createTmpfs mounts a tmpfs of p.Size at mp through the administrator
// prompt, gives it to the user (mode 700) and writes the marker files. If a
// step after the mount fails it is unmounted again (a second prompt).
//
// mount_tmpfs silently makes a tmpfs of at most half the physical memory
// (TmpDisk #36): a larger plan is cut to that limit before mounting, with a
// note, so the size asked of mount_tmpfs, written in the marker and shown is
// the real one; the size statfs reports after mounting has the last word.
func (e *Engine) createTmpfs(ctx context.Context, p ramdisk.Plan, mp string) (ramdisk.Volume, error) {
	var notes []ramdisk.Said
	if limit, ok := e.tmpfsLimit(ctx); ok && p.Size > limit {
		notes = append(notes, ramdisk.Sayf("mount_tmpfs makes a tmpfs of at most half the memory: %s instead of the %s asked for", limit, p.Size))
		p.Size = limit
	}
	owner := fmt.Sprintf("%d:%d", e.uid, e.gid)
	size := strconv.FormatInt(int64(p.Size), 10)
	what := fmt.Sprintf("mount_tmpfs -s %s %s", size, mp)
	res, err := e.r.Run(ctx, runCmd(osascriptArgv(mountScript, mp, size, owner)))
	if err != nil {
		return ramdisk.Volume{}, adminErr(what, err, res.Stderr)
	}
	if st, err := e.statfs(mp); err == nil && st.Total > 0 && ramdisk.Size(st.Total) < p.Size {
		notes = append(notes, ramdisk.Sayf("mount_tmpfs made it %s, not the %s asked for", ramdisk.Size(st.Total), p.Size))
		p.Size = ramdisk.Size(st.Total)
	}
	v := ramdisk.Volume{Name: p.Name, MountPoint: mp, Device: "tmpfs", FS: ramdisk.TmpFS, Size: p.Size,
		Allocation: ramdisk.AllocOnWrite, Managed: true, Notes: notes}
	if err := e.prepare(mp, p); err != nil {
		if cerr := e.unmountTmpfs(context.WithoutCancel(ctx), mp, true); cerr != nil {
			return ramdisk.Volume{}, errors.Join(err, fmt.Errorf("cleanup: %s is still mounted: %w", mp, cerr))
		}
		return ramdisk.Volume{}, err
	}
	v.Notes = append(v.Notes, e.spotlight(ctx, mp, p)...)
	return v, nil
}

// tmpfsLimit is the largest tmpfs mount_tmpfs makes: half the physical
// memory (sysctl hw.memsize), in whole MiB. false when memory is unknown.
func (e *Engine) tmpfsLimit(ctx context.Context) (ramdisk.Size, bool) {
	res, err := e.run(ctx, "sysctl", "hw.memsize")
	if err != nil {
		return 0, false
	}
	phys, err := parseSysctl(res.Stdout).MemSize()
	if err != nil || phys <= 0 {
		return 0, false
	}
	return ramdisk.Size(phys/2) / ramdisk.MiB * ramdisk.MiB, true
}

func (e *Engine) unmountTmpfs(ctx context.Context, mp string, force bool) error {
	mode := "normal"
	if force {
		mode = "force"
	}
	res, err := e.r.Run(ctx, runCmd(osascriptArgv(umountScript, mode, mp)))
	if err != nil {
		return adminErr("umount "+mp, err, res.Stderr)
	}
	return nil
}

// tmpfsMounted reports whether the mount table has a tmpfs at mp.
func (e *Engine) tmpfsMounted(ctx context.Context, mp string) bool {
	res, err := e.run(ctx, "mount")
	if err != nil {
		return false
	}
	for _, m := range parseMount(res.Stdout) {
		if m.MountPoint == mp && m.FSType == "tmpfs" {
			return true
		}
	}
	return false
}

// ejectTmpfs unmounts a tmpfs. Holders are looked up first (no prompt for a
// refusal); a busy unmount reported by umount is a BusyError too.
func (e *Engine) ejectTmpfs(ctx context.Context, v ramdisk.Volume, force bool) error {
	if !e.tmpfsMounted(ctx, v.MountPoint) {
		return fmt.Errorf("%s: %w", v.Name, ramdisk.ErrNotFound)
	}
	if !force {
		if hs := e.holders(ctx, v.MountPoint); len(hs) > 0 {
			return e.busy(ctx, v, hs, fmt.Errorf("umount %s: files are open", v.MountPoint))
		}
	}
	err := e.unmountTmpfs(ctx, v.MountPoint, force)
	if err != nil && !force && busyWording([]byte(err.Error())) {
		return e.busy(ctx, v, nil, err)
	}
	return err
}
