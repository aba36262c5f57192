package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"rambar/disks"
	"rambar/keeper"
	"rambar/ramdisk"
)

// checkPresetMirror refuses a Mirror preset the use case refuses
// (disks.Service.CheckMirrorPreset): another preset or a mounted disk
// mirrors its folder, or the folder cannot be mirrored (a missing folder
// only with create, --create-folder, which makes it).
func (a *App) checkPresetMirror(p ramdisk.Preset, others []ramdisk.Preset, create bool) error {
	svc, err := a.service()
	if err != nil {
		return nil // no engine or data folder: the checks run when the preset is mounted
	}
	err = svc.CheckMirrorPreset(p, others, create)
	var refused disks.FolderRefused
	switch {
	case err == nil:
		return nil
	case errors.As(err, &refused):
		return usagef("preset %s: %v", p.Name, withCreateFolder(refused.Err))
	}
	return refusedError{err}
}

// checkMirrorFolder applies the folder rules to a --mirror folder; create
// allows a missing one (--create-folder).
func (a *App) checkMirrorFolder(path string, create bool) error {
	svc, err := a.service()
	if err != nil {
		return nil // no engine or data folder: the rules run when the disk is made
	}
	var refused disks.FolderRefused
	if err := svc.CheckMirrorFolder(path, create); errors.As(err, &refused) {
		return usagef("%v", withCreateFolder(refused.Err))
	} else if err != nil {
		return err
	}
	return nil
}

// createFolderFlag takes --create-folder into o (create, keep) and checks
// the mirror folder by the keeper's rules; it goes with --mirror only.
func (a *App) createFolderFlag(in *input, o *keeper.Options) error {
	if o.Mode != ramdisk.Mirror {
		return nil // --create-folder alone was refused (ramdisk.CheckChoices)
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
// be mounted over (disks.Service.CheckInPlaceFolder); the disk's making
// checks again.
func (a *App) checkInPlace(o keeper.Options) error {
	if !o.InPlace {
		return nil
	}
	svc, err := a.service()
	if err != nil {
		return nil
	}
	if err := svc.CheckInPlaceFolder(o.MirrorPath); err != nil {
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
