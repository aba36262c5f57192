package disks

import (
	"fmt"

	"rambar/internal/record"
	"rambar/ramdisk"
)

// A disk's extras (ramdisk.VolumeOptions) are recorded when it is made, in
// DATA/options/KEY.json (KEY as in doc.go), so what must happen again
// later (its folders after a restore, its noexec and mount point when
// Reclaim makes it anew) does not depend on a preset still saying so. The
// record is RAMBar's, but read as untrusted: bounded and checked again.

// optionsRecord is what is kept of a disk's extras.
type optionsRecord struct {
	Name       string                `json:"name"`
	MountPoint string                `json:"mount_point"`
	Options    ramdisk.VolumeOptions `json:"options"`
}

// optionsKind is the kind of those records (kind); a record is read up to
// 256 KiB (its folders and icon path).
func (s *Service) optionsKind() record.Kind { return s.kind("options", 256<<10) }

// recordOptions keeps the extras of the disk just made at mountPoint; a disk
// without any has its old record removed.
func (s *Service) recordOptions(name, mountPoint string, o ramdisk.VolumeOptions) error {
	if o.Phrase() == "" {
		s.optionsKind().Remove(name)
		return nil
	}
	if err := s.optionsKind().Write(name, optionsRecord{Name: name, MountPoint: mountPoint, Options: o}); err != nil {
		return fmt.Errorf("create %s: note its options: %w", name, err)
	}
	return nil
}

// VolumeOptionsOf returns the extras the mounted disk v was made with, as
// recorded when it was made; false when it has none or the record is not of
// this disk (at that mount point), or its folders and icon no longer check out.
func (s *Service) VolumeOptionsOf(v ramdisk.Volume) (ramdisk.VolumeOptions, bool) {
	var r optionsRecord
	if _, ok := s.optionsKind().Load(v.Name, &r); !ok || r.Name != v.Name || r.MountPoint != v.MountPoint || r.Options.Check() != nil {
		return ramdisk.VolumeOptions{}, false
	}
	return r.Options, true
}
