package selftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"rambar/disks"
	"rambar/ramdisk"
)

// holderSeconds is how long the process holding the disk lives at most,
// should nothing end it.
const holderSeconds = "120"

// startHolder starts a process that holds dir busy the way a shell or an
// editor does: its working folder is there, and it keeps a file there
// open. It dies with this process where the system allows (Linux).
func startHolder(dir string) (*exec.Cmd, error) {
	f, err := os.Create(filepath.Join(dir, "held-open"))
	if err != nil {
		return nil, fmt.Errorf("holder: %w", err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", holderSeconds)
	cmd.Dir, cmd.Stdin = dir, f
	cmd.SysProcAttr = holderAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("holder: start sleep: %w", err)
	}
	return cmd, nil
}

// busy ejects the small disk while a process holds it: the eject must be
// refused as busy, naming that process, and leave the disk mounted; once
// the process is gone the eject works.
func (r *Runner) busy(ctx context.Context, d *madeDisk) Check {
	const name = "eject.busy"
	if d == nil {
		return Failf(name, "no disk to eject (engine.small failed)")
	}
	r.logf("holding %s busy and ejecting it", d.v.Name)
	holder, err := startHolder(d.v.MountPoint)
	if err != nil {
		return Failf(name, "%v", err)
	}
	pid := holder.Process.Pid
	stop := func() { holder.Process.Kill(); holder.Wait() }
	svc := r.Service()
	_, err = svc.Eject(ctx, d.v, disks.EjectOptions{NoSave: true})
	var be *ramdisk.BusyError
	var c Check
	switch {
	case err == nil:
		r.unmade(d.v)
		stop()
		return Failf(name, "ejected while sleep (pid %d) held it: the eject was not refused", pid)
	case !errors.As(err, &be):
		c = Failf(name, "eject while held failed, but not as busy: %v", err)
	case !holds(be.Holders, pid):
		c = Failf(name, "refused as busy, but the holder sleep (pid %d) is not named: %v", pid, be.Holders)
	default:
		c = Passf(name, "refused while held, naming %s; ejected once it was gone", holderNames(be.Holders))
	}
	if mounted, err := r.still(ctx, d.v.Name); err != nil || !mounted {
		stop()
		return Failf(name, "the refused eject unmounted the disk anyway (%v)", err)
	}
	stop()
	if _, err := svc.Eject(ctx, d.v, disks.EjectOptions{NoSave: true}); err != nil {
		return Failf(name, "the holder is gone but the eject still fails: %v", err)
	}
	r.unmade(d.v)
	c.Rule = "an eject of a disk a process holds (its working folder and an open file) is refused as busy, names that process and leaves the disk mounted"
	c.Data = map[string]any{"holder_pid": pid}
	if be != nil {
		c.Data["holders"] = be.Holders
	}
	return c
}

func holds(hs []ramdisk.Holder, pid int) bool {
	for _, h := range hs {
		if h.PID == pid {
			return true
		}
	}
	return false
}

func holderNames(hs []ramdisk.Holder) string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return strings.Join(out, ", ")
}
