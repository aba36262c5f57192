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

// AttachTool reports which tool attaches ram:// devices on this Mac, deciding
// once per Engine: `diskutil image attach` from macOS diskutilImageSince
// (sw_vers -productVersion), else `hdiutil attach`. If the diskutil verb then
// fails where hdiutil works, the engine switches to hdiutil for good.
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

func (e *Engine) setAttach(tool string) { e.mu.Lock(); e.attach = tool; e.mu.Unlock() }

// macOSMajor reads "26.4.1" or "10.15.7" as 26 or 10.
func macOSMajor(s string) (int, bool) {
	f := strings.SplitN(strings.TrimSpace(s), ".", 2)
	n, err := strconv.Atoi(f[0])
	return n, err == nil && n > 0
}

// attachRAM attaches an unformatted ram:// device of n sectors and returns it
// (/dev/diskN, trimmed).
func (e *Engine) attachRAM(ctx context.Context, sectors int64, hidden bool) (string, error) {
	url := fmt.Sprintf("ram://%d", sectors)
	hd := func() (string, error) {
		argv := []string{"hdiutil", "attach", "-nomount"}
		if hidden {
			argv = append(argv, "-nobrowse")
		}
		res, err := e.run(ctx, append(argv, url)...)
		if err != nil {
			return "", fmt.Errorf("hdiutil attach %s: %w", url, toolErr(err))
		}
		dev, err := parseAttach(res.Stdout)
		if err != nil {
			return "", fmt.Errorf("hdiutil attach %s: %w", url, err)
		}
		return dev, nil
	}
	if e.AttachTool(ctx) == attachHdiutil {
		return hd()
	}
	argv := []string{"diskutil", "image", "attach", "--noMount"}
	if hidden {
		argv = append(argv, "--nobrowse")
	}
	res, err := e.run(ctx, append(argv, url)...)
	if err == nil {
		dev, perr := parseAttach(res.Stdout)
		if perr == nil {
			return dev, nil
		}
		return "", fmt.Errorf("diskutil image attach %s: %w", url, perr)
	}
	derr := fmt.Errorf("diskutil image attach %s: %w", url, toolErr(err))
	dev, herr := hd()
	if herr != nil {
		return "", errors.Join(derr, herr)
	}
	e.setAttach(attachHdiutil)
	return dev, nil
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

// diskutilFS is the erasevolume format for a file system.
func diskutilFS(fs ramdisk.FileSystem) (string, bool) {
	switch fs {
	case ramdisk.APFS:
		return "APFS", true
	case ramdisk.APFSCase:
		return "APFSX", true
	case ramdisk.HFSPlus:
		return "JHFS+", true
	case ramdisk.HFSPlusCase:
		return "JHFSX", true
	}
	return "", false
}
