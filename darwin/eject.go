package darwin

import (
	"context"
	"errors"
	"fmt"

	"rambar/i18n"
	"rambar/internal/run"
	"rambar/ramdisk"
)

// Eject implements ramdisk.Engine. Disk images: `diskutil eject DEV` of the
// ram:// device (which frees the memory, APFS container included), falling
// back to `hdiutil detach DEV`; busy (isBusy: exit 16, -69888, a dissent or
// the busy wording; or lsof finding holders when both tools fail otherwise)
// gives a *BusyError naming lsof's holders. force unmounts with
// `diskutil unmountDisk force` first, then ejects, falling back to `hdiutil
// detach -force`. An unmounted but still attached image (an earlier partial
// eject) is detached.
func (e *Engine) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	if v.FS == ramdisk.TmpFS {
		return e.ejectTmpfs(ctx, v, force)
	}
	dev, err := e.resolve(ctx, v)
	if err != nil {
		return err
	}
	if force {
		_, uerr := e.run(ctx, "diskutil", "unmountDisk", "force", dev)
		_, eerr := e.run(ctx, "diskutil", "eject", dev)
		if eerr == nil {
			return nil
		}
		if _, herr := e.run(ctx, "hdiutil", "detach", "-force", dev); herr != nil {
			errs := []error{fmt.Errorf("diskutil eject %s: %w", dev, toolErr(eerr)), fmt.Errorf("hdiutil detach -force %s: %w", dev, toolErr(herr))}
			if uerr != nil {
				errs = append([]error{fmt.Errorf("diskutil unmountDisk force %s: %w", dev, toolErr(uerr))}, errs...)
			}
			return errors.Join(errs...)
		}
		return nil
	}
	res, derr := e.run(ctx, "diskutil", "eject", dev)
	if derr == nil {
		return nil
	}
	dout := both(res)
	if isBusy(derr, dout) {
		return e.busy(ctx, v, dissenters(dout), fmt.Errorf("diskutil eject %s: %w", dev, toolErr(derr)))
	}
	hres, herr := e.run(ctx, "hdiutil", "detach", dev)
	if herr == nil {
		return nil
	}
	if isBusy(herr, both(hres)) {
		return e.busy(ctx, v, dissenters(both(hres)), fmt.Errorf("hdiutil detach %s: %w", dev, toolErr(herr)))
	}
	cause := errors.Join(fmt.Errorf("diskutil eject %s: %w", dev, toolErr(derr)), fmt.Errorf("hdiutil detach %s: %w", dev, toolErr(herr)))
	if hs := e.holders(ctx, v.MountPoint); len(hs) > 0 {
		// Neither tool said "busy" in words we know, but files are open.
		return e.busy(ctx, v, nil, cause)
	}
	return cause
}

// both is a tool's stdout and stderr together (diskutil reports on either).
func both(res run.Result) []byte { return append(append([]byte{}, res.Stdout...), res.Stderr...) }

// isBusy reports whether a failed eject or detach said the disk is in use:
// exit 16 (EBUSY), diskutil's -69888, a dissenting process, or the busy
// wording itself ("Resource busy" also comes with other exit codes: OS X 10.8
// exits 2).
func isBusy(err error, out []byte) bool {
	if run.ExitCode(err) == 16 || diskutilCode(out) == codeBusy || len(dissenters(out)) > 0 {
		return true
	}
	return busyWording(out)
}

// resolve finds the ram:// device that still backs v, or ErrNotFound. A
// device number reused by another disk is not v.
func (e *Engine) resolve(ctx context.Context, v ramdisk.Volume) (string, error) {
	ims, ierr := e.images(ctx)
	for _, im := range ims {
		if !im.IsRAM() || (v.Device != "" && im.Device() != v.Device) {
			continue
		}
		en, mounted := im.Mounted()
		if v.Device == "" && (!mounted || en.MountPoint != v.MountPoint) {
			continue
		}
		if mounted && en.MountPoint != v.MountPoint {
			// The device number now serves another volume (or, for an
			// image listed unmounted, it was mounted since).
			return "", i18n.Errorf("%s: %w (%s now serves %s)", v.Name, ramdisk.ErrNotFound, im.Device(), en.MountPoint)
		}
		return im.Device(), nil
	}
	// Not in hdiutil info: a disk image attached with diskutil image.
	if v.MountPoint != "" {
		if d, err := e.diskInfo(ctx, v.MountPoint); err == nil && d.MountPoint == v.MountPoint && d.IsDiskImage() {
			dev := devPath(d.ParentWholeDisk)
			if st := d.Stores(); d.IsAPFS() && len(st) > 0 {
				dev = devPath(st[0])
			}
			return dev, nil
		}
	}
	if v.Device != "" && ierr != nil {
		if d, err := e.diskInfo(ctx, v.Device); err == nil && d.IsDiskImage() && d.MountPoint == "" {
			return v.Device, nil
		}
	}
	return "", fmt.Errorf("%s: %w", v.Name, ramdisk.ErrNotFound)
}

// busy builds the BusyError: lsof's holders, else the processes diskutil named.
func (e *Engine) busy(ctx context.Context, v ramdisk.Volume, dissent []proc, cause error) error {
	be := &ramdisk.BusyError{Volume: v.Name, Err: cause}
	if be.Volume == "" {
		be.Volume = v.MountPoint
	}
	procs := e.holders(ctx, v.MountPoint)
	if len(procs) == 0 {
		procs = dissent
	}
	for _, p := range procs {
		be.Holders = append(be.Holders, ramdisk.Holder{PID: p.PID, Command: p.Command})
	}
	return be
}

// holders lists processes with files open on the volume (lsof +f -- MP).
func (e *Engine) holders(ctx context.Context, mp string) []proc {
	if mp == "" {
		return nil
	}
	res, err := e.run(ctx, "lsof", "-F", "pc", "+f", "--", mp)
	if err != nil && run.ExitCode(err) != 1 { // lsof exits 1 when nothing is open
		return nil
	}
	return parseLsofF(res.Stdout)
}
