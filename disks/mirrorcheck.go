package disks

import (
	"fmt"

	"rambar/keeper"
	"rambar/ramdisk"
)

// FolderRefused is a Mirror folder the folder rules or the in-place rules
// refuse (a system folder, another file system, a folder missing without
// create, one a disk may not cover): the user's input is wrong, not the
// state of the machine.
type FolderRefused struct{ Err error }

// Error is the rule's message.
func (e FolderRefused) Error() string { return e.Err.Error() }

// Unwrap is the rule's error (keeper.ErrFolderMissing among them).
func (e FolderRefused) Unwrap() error { return e.Err }

// CheckMirrorFolder applies the folder rules to a Mirror folder
// (create: a missing one is allowed, it will be made). Without a data
// folder it checks nothing: the disk's making checks again.
func (s *Service) CheckMirrorFolder(path string, create bool) error {
	k, err := s.Keeper()
	if err != nil {
		return nil
	}
	if err := k.CheckFolder(path, create); err != nil {
		return FolderRefused{err}
	}
	return nil
}

// CheckInPlaceFolder refuses, before a plan is shown, a folder a disk may
// not be mounted over (keeper.CheckInPlace); the disk's making checks
// again.
func (s *Service) CheckInPlaceFolder(path string) error {
	k, err := s.Keeper()
	if err != nil {
		return nil
	}
	if err := keeper.CheckInPlace(path, k.Home); err != nil {
		return FolderRefused{err}
	}
	return nil
}

// CheckMirrorPreset refuses a Mirror preset p that another of the presets
// (others) mirrors too (the same folder, or one inside the other), that a
// mounted disk mirrors now (keeper.ErrClaimed), or whose folder the rules
// refuse (FolderRefused; a missing folder only without create). Other
// kinds of preset pass.
func (s *Service) CheckMirrorPreset(p ramdisk.Preset, others []ramdisk.Preset, create bool) error {
	if p.Contents != ramdisk.Mirror {
		return nil
	}
	k, err := s.Keeper()
	if err != nil {
		return nil // no data folder: the checks run when the preset is mounted
	}
	for _, o := range others {
		if o.Name != p.Name && o.Contents == ramdisk.Mirror && keeper.FoldersOverlap(o.MirrorPath, p.MirrorPath) {
			return fmt.Errorf("%w: preset %s: %s is mirrored by preset %s (%s); one folder, one disk",
				keeper.ErrClaimed, p.Name, p.MirrorPath, o.Name, o.MirrorPath)
		}
	}
	if err := k.CheckClaim(p.Name, p.MirrorPath); err != nil {
		return fmt.Errorf("preset %s: %w", p.Name, err)
	}
	if err := s.CheckMirrorFolder(p.MirrorPath, create); err != nil {
		return err
	}
	if p.InPlace {
		return s.CheckInPlaceFolder(p.MirrorPath)
	}
	return nil
}
