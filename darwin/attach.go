package darwin

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// AttachTool reports which tool attaches ram:// devices on this Mac, decided
// once per Engine by probing: `hdiutil attach` through macOS 26 (every
// memory finding RAMBar relies on was measured with hdiutil's helper), and
// `diskutil image attach` from macOS diskutilImageSince (sw_vers
// -productVersion), where hdiutil warns that it is deprecated. What the tools
// then say corrects the choice for good: hdiutil's deprecation warning moves
// to diskutil; diskutil's verb missing (nothing attached) moves to hdiutil.
func (e *Engine) AttachTool(ctx context.Context) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.attach == "" {
		e.attach = attachHdiutil
		if out, err := run.Output(ctx, e.r, "sw_vers", "-productVersion"); err == nil {
			if major, ok := macOSMajor(string(out)); ok && major >= diskutilImageSince {
				e.attach = attachDiskutil
			}
		}
	}
	return e.attach
}

// macOSMajor reads "26.4.1" or "10.15.7" as 26 or 10.
func macOSMajor(s string) (int, bool) {
	f := strings.SplitN(strings.TrimSpace(s), ".", 2)
	n, err := strconv.Atoi(f[0])
	return n, err == nil && n > 0
}

// attachRAM attaches an unformatted ram:// device of n sectors and returns it
// (/dev/diskN, trimmed). Nothing is left attached when it fails: a device the
// attach made but did not name (output that cannot be read, diskutil failing
// after attaching) is found by comparing diskutil's whole disks before and
// after, and detached; and hdiutil is tried after diskutil only when diskutil
// attached nothing, so a failure never attaches a second device (and only
// its usage text, a missing verb, moves the engine to hdiutil for good).
func (e *Engine) attachRAM(ctx context.Context, sectors int64, hidden bool) (string, error) {
	url := fmt.Sprintf("ram://%d", sectors)
	before, lerr := e.wholeDisks(ctx)
	if e.AttachTool(ctx) == attachHdiutil {
		return e.hdiutilAttach(ctx, url, hidden, before, sectors)
	}
	argv := []string{"diskutil", "image", "attach", "--noMount"}
	if hidden {
		argv = append(argv, "--nobrowse")
	}
	res, err := e.run(ctx, append(argv, url)...)
	if err == nil {
		return e.attached(ctx, "diskutil image attach "+url, res.Stdout, before, sectors)
	}
	derr := fmt.Errorf("diskutil image attach %s: %w", url, toolErr(err))
	if lerr != nil {
		// Whether it attached something cannot be told: do not risk a second device.
		return "", errors.Join(derr, fmt.Errorf("not trying hdiutil: %w", lerr))
	}
	if left := e.leftovers(ctx, before, sectors); len(left) > 0 {
		return "", errors.Join(derr, e.cleanup(ctx, left))
	}
	if usageText(err) {
		e.mu.Lock()
		e.attach, e.noDiskutilImage = attachHdiutil, true // the verb is missing here: hdiutil for good
		e.mu.Unlock()
	}
	dev, herr := e.hdiutilAttach(ctx, url, hidden, before, sectors)
	if herr != nil {
		return "", errors.Join(derr, herr)
	}
	return dev, nil
}

// hdiutilAttach attaches with hdiutil; a failure that still left a device
// (found as in attachRAM) detaches it.
func (e *Engine) hdiutilAttach(ctx context.Context, url string, hidden bool, before map[string]listEntry, sectors int64) (string, error) {
	argv := []string{"hdiutil", "attach", "-nomount"}
	if hidden {
		argv = append(argv, "-nobrowse")
	}
	res, err := e.run(ctx, append(argv, url)...)
	if err != nil {
		herr := fmt.Errorf("hdiutil attach %s: %w", url, toolErr(err))
		if before != nil {
			if left := e.leftovers(ctx, before, sectors); len(left) > 0 {
				return "", errors.Join(herr, e.cleanup(ctx, left))
			}
		}
		return "", herr
	}
	if isDeprecated(res.Stderr) {
		e.mu.Lock()
		if !e.noDiskutilImage {
			e.attach = attachDiskutil // hdiutil warns: diskutil image from the next attach on
		}
		e.mu.Unlock()
	}
	return e.attached(ctx, "hdiutil attach "+url, res.Stdout, before, sectors)
}

// attached reads the device a successful attach printed. When it cannot, the
// device the attach left behind is detached before the error is returned.
func (e *Engine) attached(ctx context.Context, what string, out []byte, before map[string]listEntry, sectors int64) (string, error) {
	dev, err := parseAttach(out)
	if err == nil {
		return dev, nil
	}
	err = fmt.Errorf("%s: %w", what, err)
	if before == nil {
		return "", errors.Join(err, errors.New("cleanup: which device it attached cannot be told (diskutil list failed before the attach); see `hdiutil info`"))
	}
	left := e.leftovers(ctx, before, sectors)
	if len(left) == 0 {
		return "", errors.Join(err, errors.New("cleanup: no new device of that size is listed"))
	}
	return "", errors.Join(err, e.cleanup(ctx, left))
}

// usageText reports diskutil answering with its usage text: a verb this
// macOS does not have.
func usageText(err error) bool {
	var re *run.Error
	return errors.As(err, &re) && strings.Contains(string(re.Stdout)+string(re.Stderr), "Usage:")
}

// wholeDisks lists diskutil's whole disks by identifier.
func (e *Engine) wholeDisks(ctx context.Context) (map[string]listEntry, error) {
	res, err := e.run(ctx, "diskutil", "list", "-plist")
	if err != nil {
		return nil, fmt.Errorf("diskutil list: %w", toolErr(err))
	}
	l, err := parseList(res.Stdout)
	if err != nil {
		return nil, err
	}
	m := map[string]listEntry{}
	for _, d := range l.AllDisksAndPartitions {
		m[d.DeviceIdentifier] = d
	}
	return m, nil
}

// leftovers are the devices an attach of sectors made without naming them:
// whole disks that were not there before, of exactly that size, still raw
// (no content, partitions or mount point). More than one is ambiguous (a
// second attach elsewhere at the same moment): then none is taken.
func (e *Engine) leftovers(ctx context.Context, before map[string]listEntry, sectors int64) []string {
	after, err := e.wholeDisks(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for id, d := range after {
		if _, old := before[id]; old || d.Size != sectors*512 || d.Content != "" || d.MountPoint != "" || len(d.Partitions) > 0 {
			continue
		}
		out = append(out, devPath(id))
	}
	if len(out) != 1 {
		return nil
	}
	return out
}

// cleanup detaches devices an attach left behind.
func (e *Engine) cleanup(ctx context.Context, devs []string) error {
	var errs []error
	for _, d := range devs {
		if err := e.detach(ctx, d); err != nil {
			errs = append(errs, fmt.Errorf("cleanup: %s is still attached: %w", d, err))
		} else {
			errs = append(errs, fmt.Errorf("cleanup: detached %s, which the attach left behind", d))
		}
	}
	return errors.Join(errs...)
}

// detach frees a ram:// device: diskutil eject, then hdiutil detach -force.
// It runs even when ctx is cancelled (it is cleanup).
func (e *Engine) detach(ctx context.Context, dev string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	_, err := e.run(ctx, "diskutil", "eject", dev)
	if err == nil {
		return nil
	}
	derr := fmt.Errorf("diskutil eject %s: %w", dev, toolErr(err))
	if _, err := e.run(ctx, "hdiutil", "detach", "-force", dev); err != nil {
		return errors.Join(derr, fmt.Errorf("hdiutil detach -force %s: %w", dev, toolErr(err)))
	}
	return nil
}

// diskutilFS is the erasevolume format for a file system: hfs+ is plain
// HFS+ (what the seed measured), jhfs+ the journaled one.
func diskutilFS(fs ramdisk.FileSystem) (string, bool) {
	switch fs {
	case ramdisk.APFS:
		return "APFS", true
	case ramdisk.APFSCase:
		return "APFSX", true
	case ramdisk.HFSPlus:
		return "HFS+", true
	case ramdisk.HFSPlusCase:
		return "HFSX", true
	case ramdisk.JHFSPlus:
		return "JHFS+", true
	}
	return "", false
}
