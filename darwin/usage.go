package darwin

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"rambar/i18n"
	"rambar/ramdisk"
)

// Usage implements ramdisk.Engine: size and free space from diskutil info
// (the container's free space for APFS), memory held from the helper's
// footprint (ps rss when footprint fails). HeldKnown is false when the helper
// is unknown.
func (e *Engine) Usage(ctx context.Context, v ramdisk.Volume) (ramdisk.Usage, error) {
	u := ramdisk.Usage{At: e.now()}
	if v.FS == ramdisk.TmpFS {
		if !e.tmpfsMounted(ctx, v.MountPoint) {
			return u, fmt.Errorf("%s: %w", v.MountPoint, ramdisk.ErrNotFound)
		}
		st, err := e.statfs(v.MountPoint)
		if err != nil {
			return u, fmt.Errorf("statfs %s: %w", v.MountPoint, err)
		}
		u.Size, u.Free = ramdisk.Size(st.Total), ramdisk.Size(st.Free)
		u.Used = u.Size - u.Free
		u.Files = st.Files
		// tmpfs pages are kernel memory: what the files take is what is held.
		u.Held, u.HeldKnown = u.Used, true
		return u, nil
	}
	if v.MountPoint == "" {
		return e.unmountedUsage(ctx, v, u)
	}
	d, err := e.diskInfo(ctx, v.MountPoint)
	if err != nil {
		if errors.Is(err, errNoDisk) {
			return u, fmt.Errorf("%s: %w", v.Name, ramdisk.ErrNotFound)
		}
		return u, err
	}
	if d.MountPoint != v.MountPoint {
		return u, i18n.Errorf("%s: %w (nothing mounted at %s)", v.Name, ramdisk.ErrNotFound, v.MountPoint)
	}
	u.Size = ramdisk.Size(d.Capacity())
	u.Free = ramdisk.Size(d.Free())
	if u.Free > u.Size {
		u.Free = u.Size
	}
	u.Used = u.Size - u.Free
	pid := v.HelperPID
	if pid == 0 && v.Device != "" {
		if im, ok := e.imageFor(ctx, v.Device); ok {
			pid = im.HelperPID
		}
	}
	if pid > 0 {
		if n, err := e.held(ctx, pid); err == nil {
			u.Held, u.HeldKnown = ramdisk.Size(n), true
		}
	}
	return u, nil
}

// unmountedUsage measures an image attached but not mounted: its size and
// the memory its helper holds; no file system to count files in.
func (e *Engine) unmountedUsage(ctx context.Context, v ramdisk.Volume, u ramdisk.Usage) (ramdisk.Usage, error) {
	im, ok := e.imageFor(ctx, v.Device)
	if !ok {
		return u, fmt.Errorf("%s: %w", v.Name, ramdisk.ErrNotFound)
	}
	if _, mounted := im.Mounted(); mounted {
		return u, i18n.Errorf("%s: %w (%s is mounted again)", v.Name, ramdisk.ErrNotFound, v.Device)
	}
	u.Size = ramdisk.Size(im.Size())
	if im.HelperPID > 0 {
		if n, err := e.held(ctx, im.HelperPID); err == nil {
			u.Held, u.HeldKnown = ramdisk.Size(n), true
		}
	}
	return u, nil
}

// held is the helper's memory: footprint's phys_footprint, else ps rss.
func (e *Engine) held(ctx context.Context, pid int) (int64, error) {
	p := strconv.Itoa(pid)
	res, ferr := e.run(ctx, "footprint", "-f", "bytes", "--noCategories", p)
	if ferr == nil {
		if fps, err := parseFootprintText(res.Stdout); err == nil {
			for _, f := range fps {
				if f.PID == pid {
					return f.Bytes(), nil
				}
			}
		}
	}
	res, err := e.run(ctx, "ps", "-o", "rss=", "-p", p)
	if err != nil {
		return 0, errors.Join(fmt.Errorf("footprint %s: %w", p, toolErr(ferr)), fmt.Errorf("ps -p %s: %w", p, toolErr(err)))
	}
	return parseRSS(res.Stdout)
}

// Memory implements ramdisk.Engine: vm_stat (page size from its header),
// sysctl hw.memsize and vm.swapusage, and the kernel's pressure level.
func (e *Engine) Memory(ctx context.Context) (ramdisk.Memory, error) {
	var m ramdisk.Memory
	res, err := e.run(ctx, "sysctl", "hw.memsize", "vm.swapusage")
	if err != nil {
		return m, fmt.Errorf("sysctl hw.memsize vm.swapusage: %w", toolErr(err))
	}
	sc := parseSysctl(res.Stdout)
	phys, err := sc.MemSize()
	if err != nil {
		return m, fmt.Errorf("sysctl hw.memsize: %w", err)
	}
	m.Physical = ramdisk.Size(phys)
	if s, ok := sc["vm.swapusage"]; ok {
		sw, err := parseSwap(s)
		if err != nil {
			return m, err
		}
		m.SwapTotal, m.SwapUsed = ramdisk.Size(sw.Total), ramdisk.Size(sw.Used)
	}
	res, err = e.run(ctx, "vm_stat")
	if err != nil {
		return m, fmt.Errorf("vm_stat: %w", toolErr(err))
	}
	vm, err := parseVMStat(res.Stdout)
	if err != nil {
		return m, err
	}
	m.Free = ramdisk.Size(min(vm.Available(), phys))
	m.Compressed = ramdisk.Size(vm.Compressed())
	if res, err := e.run(ctx, "sysctl", "-n", "kern.memorystatus_vm_pressure_level"); err == nil {
		m.Pressure = pressureLevel(string(res.Stdout))
	}
	return m, nil
}

// FreePercent is memory_pressure's "System-wide memory free percentage".
func (e *Engine) FreePercent(ctx context.Context) (int, error) {
	res, err := e.run(ctx, "memory_pressure", "-Q")
	if err != nil {
		return 0, fmt.Errorf("memory_pressure -Q: %w", toolErr(err))
	}
	p, err := parsePressure(res.Stdout)
	if err != nil {
		return 0, err
	}
	return p.FreePercent, nil
}
