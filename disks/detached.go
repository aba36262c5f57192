package disks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"rambar/internal/record"
	"rambar/ramdisk"
)

// A busy disk ejected with force is unmounted lazily where the engine does
// that (ramdisk.Detacher: Linux): it leaves the file tree at once, but its
// memory stays held until the processes that hold it exit or let go. Eject
// says so (Ejected.Detached), and keeps a record of it in
// DATA/detached/KEY-DEVICE.json (KEY as in doc.go), so that `list` and the
// menu show it as "ejected, memory held by PIDs …" until it is gone; the
// record of a disk that is gone is removed when it is next read. Records
// are read as untrusted: bounded, and checked.

// detachedRecords is the folder of those records in the data folder.
const detachedRecords = "detached"

// Detached is a disk ejected while busy whose memory is still held.
type Detached struct {
	Name       string             `json:"name"`
	MountPoint string             `json:"mount_point"`
	FS         ramdisk.FileSystem `json:"fs"`
	// Device names its file system until it is freed (ramdisk.Detacher).
	Device  string    `json:"device"`
	Ejected time.Time `json:"ejected"`
	// Held and Holders are as measured when it was read (not recorded).
	Held    ramdisk.Size     `json:"-"`
	Holders []ramdisk.Holder `json:"-"`
}

// PIDs names the holders: "PIDs 4242 (sleep), 4243 (vim)", "PID 4242 (sleep)".
func (d Detached) PIDs() string {
	parts := make([]string, len(d.Holders))
	for i, h := range d.Holders {
		parts[i] = fmt.Sprintf("%d (%s)", h.PID, h.Command)
	}
	if len(parts) == 1 {
		return "PID " + parts[0]
	}
	return "PIDs " + strings.Join(parts, ", ")
}

// Status is the disk as list and the menu show it: "ejected, memory held
// by PIDs 4242 (sleep)".
func (d Detached) Status() ramdisk.Said { return ramdisk.Sayf("ejected, memory held by %s", d.PIDs()) }

// detachedAfter notes a disk Eject unmounted with force, if it is still
// held (device is its ramdisk.Detacher DeviceID from before the eject).
func (s *Service) detachedAfter(ctx context.Context, v ramdisk.Volume, device string) *Detached {
	dt, ok := s.Engine.(ramdisk.Detacher)
	if !ok || device == "" {
		return nil
	}
	hs, held, gone := dt.StillHeld(ctx, device)
	if gone {
		return nil
	}
	d := &Detached{Name: v.Name, MountPoint: v.MountPoint, FS: v.FS, Device: device, Ejected: time.Now().UTC(), Held: held, Holders: hs}
	if s.Paths.Data != "" {
		record.WriteJSON(s.detachedPath(v.Name, device), d) // best effort: the eject said so already
	}
	return d
}

func (s *Service) detachedPath(name, device string) string {
	return filepath.Join(s.Paths.Data, detachedRecords, record.Platform.Key(name)+"-"+strings.ReplaceAll(device, ":", "-")+".json")
}

// DetachedDisks lists the disks ejected while busy whose memory is still
// held, oldest first, each with who holds it now; records of disks that are
// gone are removed. Without such an engine or records, it is empty and
// cheap.
func (s *Service) DetachedDisks(ctx context.Context) []Detached {
	dt, ok := s.Engine.(ramdisk.Detacher)
	if !ok || s.Paths.Data == "" {
		return nil
	}
	var out []Detached
	s.kind(detachedRecords, 16<<10).Each(func(p string, b []byte) {
		var d Detached
		if json.Unmarshal(b, &d) != nil || ramdisk.ValidateName(d.Name) != nil || p != s.detachedPath(d.Name, d.Device) {
			return // not a record of ours: left alone
		}
		hs, held, gone := dt.StillHeld(ctx, d.Device)
		if gone {
			os.Remove(p)
			return
		}
		d.Holders, d.Held = hs, held
		out = append(out, d)
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Ejected.Before(out[j].Ejected) })
	return out
}
