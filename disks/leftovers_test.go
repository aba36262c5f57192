package disks

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"rambar/cache"
	"rambar/internal/record"
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

// TestLeftoversListEveryPendingStep: what the step journals hold open is
// listed (doctor shows it): a cache switch cut short, the temporary-name
// lists a stopped write-back and refresh left, and the fill record of a
// disk that is gone; a cache switched on and settled is not.
func TestLeftoversListEveryPendingStep(t *testing.T) {
	s, _ := memService(t)
	data := s.Paths.Data
	target := filepath.Join(t.TempDir(), "go-build")
	cut := fmt.Sprintf(`{"id":%q,"disk":"Build","target":%q,"state":"switching-on"}`, cache.ID(target), target)
	settled := filepath.Join(t.TempDir(), "npm")
	on := fmt.Sprintf(`{"id":%q,"disk":"Build","target":%q,"state":"on"}`, cache.ID(settled), settled)
	for p, body := range map[string]string{
		filepath.Join(data, "caches", cache.ID(target)+".json"):           cut,
		filepath.Join(data, "caches", cache.ID(settled)+".json"):          on,
		filepath.Join(data, "disks", "Work", "mirror", "pending"):         "RAMBAR-MIRROR-PENDING-1\n",
		filepath.Join(data, "disks", "Site", "mirror", "refresh-pending"): "x",
		filepath.Join(data, "restoring", "gone.json"):                     `{"name":"gone","mount_point":"/mnt/rambar/gone"}`,
	} {
		if err := record.Write(p, []byte(body), false); err != nil {
			t.Fatal(err)
		}
	}
	ls, err := s.Leftovers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"cache-step Build switching-on": true, "temporary-names Work write-back": true,
		"temporary-names Site refresh": true, "restore-incomplete gone restoring": true}
	for _, l := range ls {
		k := fmt.Sprintf("%s %s %s", l.Kind, l.Name, l.Step)
		if !want[k] || l.Advice == "" {
			t.Errorf("leftover %q (%+v) not expected", k, l)
		}
		delete(want, k)
	}
	for k := range want {
		t.Errorf("not listed: %s", k)
	}
}
