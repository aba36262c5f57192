package disks

import (
	"os"

	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

// childService is the real Linux engine under DISKS_ROOT, with its data in
// DISKS_DATA.
func childService() (*Service, error) {
	e := linux.New(run.System(), linux.WithMountRoot(os.Getenv("DISKS_ROOT")))
	return &Service{Engine: e, Paths: ramdisk.Paths{Data: os.Getenv("DISKS_DATA")}}, nil
}
