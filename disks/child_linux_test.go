package disks

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// childService is the real Linux engine under DISKS_ROOT, with its data in
// DISKS_DATA.
func childService() (*Service, error) {
	e := linux.New(run.System(), linux.WithMountRoot(os.Getenv("DISKS_ROOT")))
	return &Service{Engine: e, Paths: ramdisk.Paths{Data: os.Getenv("DISKS_DATA")}}, nil
}

// killAt names the moment a reclaiming child kills itself with SIGKILL.
// "eject" and "create" are in the engine (about to eject; ejected, not yet
// made again); the
// others are progress reports: PHASE-start or PHASE-end.
type killingEngine struct {
	ramdisk.Engine
	at string
}

func (e killingEngine) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	if e.at == "eject" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return e.Engine.Eject(ctx, v, force)
}

func (e killingEngine) Create(ctx context.Context, p ramdisk.Plan) (ramdisk.Volume, error) {
	if e.at == "create" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return e.Engine.Create(ctx, p)
}

// childReclaim reclaims the disk, killing itself at killAt: a progress
// phase's start or end, the engine's eject or create, a step just recorded
// (keeper.ReclaimCopiedOut...), or "cleanup": once "copied back" is
// recorded, part of the staging copy is removed as the reclaim's own
// removal would, and the process is killed half way through it.
func childReclaim(ctx context.Context, s *Service, name, killAt string) error {
	s.Engine = killingEngine{s.Engine, killAt}
	s.NewKeeper = func(data string) *keeper.Keeper { return keeper.NewKeeper(data) }
	s.reclaimed = func(st keeper.ReclaimStep) error {
		switch {
		case killAt == st.Step:
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		case killAt == "cleanup" && st.Step == keeper.ReclaimCopiedBack:
			removeSome(st.Staging, 150)
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		return nil
	}
	v, err := s.Find(ctx, name)
	if err != nil {
		return err
	}
	_, err = s.Reclaim(ctx, v, ReclaimOptions{Force: true, Progress: func(p ramdisk.Progress) {
		done, total := p.Units()
		switch {
		case killAt == p.Phase+"-start",
			killAt == p.Phase+"-end" && total > 0 && done >= total:
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}})
	return err
}

// removeSome removes up to n regular files under dir, in the order a
// directory walk meets them.
func removeSome(dir string, n int) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || n <= 0 {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() && os.Remove(p) == nil {
			n--
		}
		return nil
	})
}
