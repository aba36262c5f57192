package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rambar/foldersync"
	"strings"

	"rambar/keeper"
	"rambar/ramdisk"
)

// checkPresetMirror refuses a Mirror preset that another preset mirrors too
// (the same folder, or one inside the other), that a mounted disk mirrors
// now, or whose folder cannot be mirrored (foldersync.CheckFolder; a missing
// folder only with create, --create-folder, which makes it).
func (a *App) checkPresetMirror(p ramdisk.Preset, others []ramdisk.Preset, create bool) error {
	if p.Contents != ramdisk.Mirror {
		return nil
	}
	k, ok := a.folderKeeper()
	if !ok {
		return nil // no engine or data folder: the checks run when the preset is mounted
	}
	for _, o := range others {
		if o.Name != p.Name && o.Contents == ramdisk.Mirror && foldersOverlap(o.MirrorPath, p.MirrorPath) {
			return refusedError{fmt.Errorf("%w: preset %s: %s is mirrored by preset %s (%s); one folder, one disk",
				keeper.ErrClaimed, p.Name, p.MirrorPath, o.Name, o.MirrorPath)}
		}
	}
	if err := k.CheckClaim(p.Name, p.MirrorPath); err != nil {
		return refusedError{fmt.Errorf("preset %s: %w", p.Name, err)}
	}
	if err := foldersync.CheckFolder(p.MirrorPath, k.Rules(create)); err != nil {
		return usagef("preset %s: %v", p.Name, withCreateFolder(err))
	}
	if p.InPlace {
		if err := keeper.CheckInPlace(p.MirrorPath, k.Home); err != nil {
			return usagef("preset %s: %v", p.Name, err)
		}
	}
	return nil
}

// checkMirrorFolder applies mirror's folder rules (foldersync.CheckFolder) to a
// --mirror folder; create allows a missing one (--create-folder).
func (a *App) checkMirrorFolder(path string, create bool) error {
	k, ok := a.folderKeeper()
	if !ok {
		return nil // no engine or data folder: the rules run when the disk is made
	}
	if err := foldersync.CheckFolder(path, k.Rules(create)); err != nil {
		return usagef("%v", withCreateFolder(err))
	}
	return nil
}

// createFolderFlag takes --create-folder into o (create, keep) and checks
// the mirror folder by the keeper's rules; it goes with --mirror only.
func (a *App) createFolderFlag(in *input, o *keeper.Options) error {
	if o.Mode != ramdisk.Mirror {
		if in.Set("create-folder") {
			return usagef("--create-folder goes with --mirror FOLDER")
		}
		return nil
	}
	o.CreateFolder = *in.Bool("create-folder")
	return a.checkMirrorFolder(o.MirrorPath, o.CreateFolder)
}

// withCreateFolder adds to a missing mirror folder's refusal the flag that
// makes it, for the commands that take it (create, preset add and edit).
func withCreateFolder(err error) error {
	if errors.Is(err, keeper.ErrFolderMissing) {
		return fmt.Errorf("%w; pass --create-folder to make it", err)
	}
	return err
}

// checkInPlace refuses, before the plan is printed, a folder a disk may not
// be mounted over (keeper.CheckInPlace); the disk's making checks again.
func (a *App) checkInPlace(o keeper.Options) error {
	if !o.InPlace {
		return nil
	}
	k, ok := a.folderKeeper()
	if !ok {
		return nil
	}
	if err := keeper.CheckInPlace(o.MirrorPath, k.Home); err != nil {
		return usagef("%v", err)
	}
	return nil
}

// inPlaceAt is the folder a mounted disk covers (Mirror in place), "" for
// none or when it cannot be told.
func (a *App) inPlaceAt(ctx context.Context, v ramdisk.Volume) string {
	svc, err := a.service()
	if err != nil {
		return ""
	}
	return svc.InPlace(ctx, v)
}

// folderKeeper is the keeper with the engine behind it, so mirror's folder
// rules know the RAM disks mounted now (a folder inside one is refused).
func (a *App) folderKeeper() (*keeper.Keeper, bool) {
	svc, err := a.service()
	if err != nil {
		return nil, false
	}
	k, err := svc.Keeper()
	return k, err == nil
}

// foldersOverlap: the same folder, or one inside the other.
func foldersOverlap(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// makeMirrorFolder makes a Mirror preset's missing folder when
// --create-folder asks for it, so the preset mounts (a mount refuses a
// missing folder); the folder's rules were checked already.
func makeMirrorFolder(in *input, p ramdisk.Preset) error {
	if !*in.Bool("create-folder") || p.Contents != ramdisk.Mirror {
		return nil
	}
	if err := os.MkdirAll(p.MirrorPath, 0o755); err != nil {
		return fmt.Errorf("preset %s: make %s: %w", p.Name, p.MirrorPath, err)
	}
	return nil
}
