package darwin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// bundleID is RAMBar's bundle identifier: its login item's launchd label.
const bundleID = "app.rambar.RAMBar"

// captureCommands are the read-only tools `rambar doctor --capture` saves,
// by file name, for the user uid.
func captureCommands(uid int) []struct {
	File string
	Argv []string
} {
	gui := "gui/" + strconv.Itoa(uid)
	return []struct {
		File string
		Argv []string
	}{
		{"sw_vers.txt", []string{"sw_vers"}},
		{"hdiutil-info.plist", []string{"hdiutil", "info", "-plist"}},
		{"hdiutil-info.txt", []string{"hdiutil", "info"}},
		{"diskutil-list.plist", []string{"diskutil", "list", "-plist"}},
		{"diskutil-image-attach-help.txt", []string{"diskutil", "image", "attach", "--help"}},
		{"mount.txt", []string{"mount"}},
		{"vm_stat.txt", []string{"vm_stat"}},
		{"sysctl.txt", []string{"sysctl", "hw.memsize", "vm.swapusage", "hw.pagesize"}},
		{"memory_pressure.txt", []string{"memory_pressure"}},
		{"login-launchctl-print.txt", []string{"launchctl", "print", gui + "/" + bundleID}},
		{"login-launchctl-print-disabled.txt", []string{"launchctl", "print-disabled", gui}},
	}
}

// Capture saves in dir what a first run on a Mac must tell (darwin/README.md,
// "What still needs a Mac"): the read-only tools' output (captureCommands),
// then experiments on hidden RAM disks it makes and removes again:
//
//   - raw ram:// devices of 2 GiB and 4 GiB attached each way (hdiutil
//     attach, diskutil image attach): `hdiutil info -plist` with each (does a
//     diskutil-attached image show, with image-path, hdid-pid, diskimages2?),
//     the helper process (`ps -o user,comm`), `footprint` on it as this user
//     and `ps -o rss=`: the memory each size takes at attach;
//   - a 4 GiB APFS disk made as RAMBar makes it: `mdutil -i off` without
//     sudo and `mdutil -s`, the helper's memory empty, after writing a
//     256 MiB file and after deleting it (does deleting give memory back?),
//     and an attempt to set com.apple.provenance on that file.
//
// Each output goes to its own file (stderr beside it as FILE.stderr); a step
// that fails is recorded and the rest goes on. It returns the files written
// and every failure, joined.
func (e *Engine) Capture(ctx context.Context, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	c := &capture{e: e, dir: dir}
	for _, cc := range captureCommands(e.uid) {
		c.cmd(ctx, cc.File, cc.Argv...)
	}
	for _, tool := range []string{attachHdiutil, attachDiskutil} {
		for _, gib := range []int64{2, 4} {
			c.rawAttach(ctx, tool, ramdisk.Size(gib)*ramdisk.GiB, fmt.Sprintf("%s-%dg", tool, gib))
		}
	}
	c.writeDelete(ctx)
	return c.files, errors.Join(c.errs...)
}

// capture collects the files and failures of one Capture.
type capture struct {
	e     *Engine
	dir   string
	files []string
	errs  []error
	fatal error // the folder cannot be written: stop
}

// write saves data as file in the capture folder.
func (c *capture) write(file string, data []byte) {
	if c.fatal != nil {
		return
	}
	p := filepath.Join(c.dir, file)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		c.fatal = fmt.Errorf("capture: %w", err)
		c.errs = append(c.errs, c.fatal)
		return
	}
	c.files = append(c.files, p)
}

// cmd runs argv and saves its stdout as file (stderr as file.stderr).
func (c *capture) cmd(ctx context.Context, file string, argv ...string) (run.Result, error) {
	res, err := c.e.r.Run(ctx, run.Cmd{Argv: argv})
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("%s: %w", strings.Join(argv[:min(2, len(argv))], " "), toolErr(err)))
		if run.ExitCode(err) >= 0 {
			res.Stdout = append(res.Stdout, fmt.Sprintf("\n[exit %d]\n", run.ExitCode(err))...)
		}
	}
	c.write(file, res.Stdout)
	if len(res.Stderr) > 0 {
		c.write(file+".stderr", res.Stderr)
	}
	return res, err
}

// note records a failure of an experiment in a file of its own.
func (c *capture) note(file string, err error) {
	c.errs = append(c.errs, err)
	c.write(file, []byte(err.Error()+"\n"))
}

// helper saves what is known of the diskimages-helper pid: its user and
// command, its footprint and its rss.
func (c *capture) helper(ctx context.Context, tag string, pid int) {
	p := strconv.Itoa(pid)
	c.cmd(ctx, tag+"-ps.txt", "ps", "-o", "user,comm", "-p", p)
	c.cmd(ctx, tag+"-footprint.txt", "footprint", "-f", "bytes", "--noCategories", p)
	c.cmd(ctx, tag+"-rss.txt", "ps", "-o", "rss=", "-p", p)
}

// rawAttach attaches an unformatted hidden ram:// device of size with tool,
// saves hdiutil's view of it and its helper's memory, and detaches it.
func (c *capture) rawAttach(ctx context.Context, tool string, size ramdisk.Size, tag string) {
	url := fmt.Sprintf("ram://%d", size.Sectors())
	argv := []string{"hdiutil", "attach", "-nomount", "-nobrowse", url}
	if tool == attachDiskutil {
		argv = []string{"diskutil", "image", "attach", "--noMount", "--nobrowse", url}
	}
	res, err := c.cmd(ctx, tag+"-attach.txt", argv...)
	if err != nil {
		return
	}
	dev, err := parseAttach(res.Stdout)
	if err != nil {
		c.note(tag+"-attach.err", fmt.Errorf("%s: %w (a device may be left attached: see hdiutil-info.plist)", strings.Join(argv[:2], " "), err))
		return
	}
	defer func() {
		if err := c.e.detach(ctx, dev); err != nil {
			c.note(tag+"-detach.err", fmt.Errorf("detach %s: %w", dev, err))
		}
	}()
	info, err := c.cmd(ctx, tag+"-hdiutil-info.plist", "hdiutil", "info", "-plist")
	if err != nil {
		return
	}
	ims, _ := parseInfoPlist(info.Stdout)
	for _, im := range ims {
		if im.Device() == dev && im.HelperPID > 0 {
			c.helper(ctx, tag, im.HelperPID)
			return
		}
	}
	c.note(tag+"-helper.err", fmt.Errorf("%s attached with %s: no hdid-pid for it in hdiutil info -plist", dev, tool))
}

// captureName is the disk writeDelete makes.
const captureName = "RAMBar Capture"

// writeDelete makes a 4 GiB APFS disk as RAMBar makes it, then records
// Spotlight's answer without sudo, the helper's memory empty, after writing
// 256 MiB and after deleting it, and whether com.apple.provenance can be set.
func (c *capture) writeDelete(ctx context.Context) {
	v, err := c.e.Create(ctx, ramdisk.Plan{Name: captureName, Size: 4 * ramdisk.GiB, FS: ramdisk.APFS, Hidden: true})
	if err != nil {
		c.note("written-create.err", fmt.Errorf("create %s: %w", captureName, err))
		return
	}
	defer func() {
		if err := c.e.Eject(context.WithoutCancel(ctx), v, true); err != nil {
			c.note("written-eject.err", fmt.Errorf("eject %s: %w", v.MountPoint, err))
		}
	}()
	c.write("written-create.txt", []byte(fmt.Sprintf("%s at %s on %s, helper %d\nnotes: %s\n", v.Name, v.MountPoint, v.Device, v.HelperPID, strings.Join(ramdisk.Texts(v.Notes), "; "))))
	c.cmd(ctx, "mdutil-off-nosudo.txt", "mdutil", "-i", "off", v.MountPoint)
	c.cmd(ctx, "mdutil-s.txt", "mdutil", "-s", v.MountPoint)
	if v.HelperPID > 0 {
		c.helper(ctx, "written-0-empty", v.HelperPID)
	}
	file := filepath.Join(v.MountPoint, "capture.bin")
	block := make([]byte, 1<<20)
	for i := range block {
		block[i] = byte(i*7 + 1) // not zeros: every block is really written
	}
	f, err := os.Create(file)
	if err != nil {
		c.note("written-write.err", err)
		return
	}
	for i := 0; i < 256 && err == nil; i++ {
		_, err = f.Write(block)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		c.note("written-write.err", err)
		return
	}
	if v.HelperPID > 0 {
		c.helper(ctx, "written-1-after-write", v.HelperPID)
	}
	c.cmd(ctx, "provenance-set.txt", "xattr", "-w", "com.apple.provenance", "rambar-capture", file)
	c.cmd(ctx, "provenance-list.txt", "xattr", "-l", file)
	if err := os.Remove(file); err != nil {
		c.note("written-delete.err", err)
		return
	}
	if v.HelperPID > 0 {
		c.helper(ctx, "written-2-after-delete", v.HelperPID)
	}
}
