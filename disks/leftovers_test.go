package disks

import (
	"context"
	"testing"

	"rambar/ramdisk/ramdisktest"
)

// devicesEngine is the in-memory engine with zram devices left by killed
// creates (as the Linux engine names them).
type devicesEngine struct {
	*ramdisktest.Mem
	left []string
}

func (e devicesEngine) LeftoverDevices(context.Context) ([]string, error) { return e.left, nil }

func TestLeftoversListZRAMDevices(t *testing.T) {
	s, mem := memService(t)
	ls, err := s.Leftovers(context.Background())
	if err != nil || len(ls) != 0 {
		t.Fatalf("an engine without leftover devices: %+v, %v", ls, err)
	}
	s.Engine = devicesEngine{Mem: mem, left: []string{"/dev/zram5"}}
	ls, err = s.Leftovers(context.Background())
	if err != nil || len(ls) != 1 || ls[0].Kind != LeftZRAM || ls[0].Path != "/dev/zram5" || ls[0].Advice == "" {
		t.Errorf("Leftovers = %+v, %v; want /dev/zram5 as a zram-device leftover", ls, err)
	}
}
