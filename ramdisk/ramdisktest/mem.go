// Package ramdisktest holds the conformance suite every ramdisk.Engine passes
// and Mem, an engine whose "disks" are folders: real files, no mounts, for
// tests of code that sits on top of an engine (CLI, tray, mirror).
package ramdisktest

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"rambar/ramdisk"
)

// Mem is an in-memory engine: each disk is a folder under Root, sizes are
// enforced only in Usage. Safe for concurrent use.
type Mem struct {
	Root string
	mu   sync.Mutex
	vols map[string]ramdisk.Volume
	busy map[string][]ramdisk.Holder
	fail map[string]error
	mem  ramdisk.Memory
	caps ramdisk.Caps
}

var _ ramdisk.Engine = (*Mem)(nil)

// NewMem returns a Mem keeping its disks under root, reporting m as the
// machine's memory. Caps advertise tmpfs first, then the macOS formats.
func NewMem(root string, m ramdisk.Memory) *Mem {
	return &Mem{
		Root: root,
		vols: map[string]ramdisk.Volume{},
		busy: map[string][]ramdisk.Holder{},
		fail: map[string]error{},
		mem:  m,
		caps: ramdisk.Caps{
			OS:          "mem",
			FileSystems: []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.APFS, ramdisk.HFSPlus},
			MountRoot:   root,
		},
	}
}

// SetMemory changes what Memory reports.
func (m *Mem) SetMemory(x ramdisk.Memory) { m.mu.Lock(); m.mem = x; m.mu.Unlock() }

// FailNext makes the next call of op ("create", "list", "eject", "usage",
// "memory") return err.
func (m *Mem) FailNext(op string, err error) { m.mu.Lock(); m.fail[op] = err; m.mu.Unlock() }

func (m *Mem) failed(op string) error {
	err := m.fail[op]
	delete(m.fail, op)
	return err
}

// Hold marks v busy, held by h, until the returned func is called.
func (m *Mem) Hold(v ramdisk.Volume, h ramdisk.Holder) (release func()) {
	m.mu.Lock()
	m.busy[v.Name] = append(m.busy[v.Name], h)
	m.mu.Unlock()
	return func() { m.mu.Lock(); delete(m.busy, v.Name); m.mu.Unlock() }
}

// Vanish removes a disk as if it disappeared outside any eject (sleep, crash).
func (m *Mem) Vanish(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.vols[name]; ok {
		os.RemoveAll(v.MountPoint)
		delete(m.vols, name)
	}
}

// Caps implements ramdisk.Engine.
func (m *Mem) Caps() ramdisk.Caps { return m.caps }

// Create implements ramdisk.Engine.
func (m *Mem) Create(ctx context.Context, p ramdisk.Plan) (ramdisk.Volume, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failed("create"); err != nil {
		return ramdisk.Volume{}, err
	}
	if err := ramdisk.ValidateName(p.Name); err != nil {
		return ramdisk.Volume{}, err
	}
	if _, ok := m.vols[p.Name]; ok {
		return ramdisk.Volume{}, fmt.Errorf("mem create %s: %w", p.Name, ramdisk.ErrExists)
	}
	if !m.caps.Supports(p.FS) {
		return ramdisk.Volume{}, fmt.Errorf("mem create %s: %w: %s", p.Name, ramdisk.ErrUnsupported, p.FS)
	}
	mp := filepath.Join(m.Root, p.Name)
	if err := os.MkdirAll(mp, 0o700); err != nil {
		return ramdisk.Volume{}, fmt.Errorf("mem create %s: %w", p.Name, err)
	}
	v := ramdisk.Volume{Name: p.Name, MountPoint: mp, Device: "mem:" + p.Name, FS: p.FS, Size: p.Size,
		Hidden: p.Hidden, Allocation: p.Allocation, Managed: true}
	m.vols[p.Name] = v
	return v, nil
}

// List implements ramdisk.Engine.
func (m *Mem) List(ctx context.Context) ([]ramdisk.Volume, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failed("list"); err != nil {
		return nil, err
	}
	out := make([]ramdisk.Volume, 0, len(m.vols))
	for _, v := range m.vols {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Eject implements ramdisk.Engine.
func (m *Mem) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failed("eject"); err != nil {
		return err
	}
	cur, ok := m.vols[v.Name]
	if !ok {
		return fmt.Errorf("mem eject %s: %w", v.Name, ramdisk.ErrNotFound)
	}
	if h := m.busy[v.Name]; len(h) > 0 && !force {
		return &ramdisk.BusyError{Volume: v.Name, Holders: h}
	}
	delete(m.busy, v.Name)
	delete(m.vols, v.Name)
	if err := os.RemoveAll(cur.MountPoint); err != nil {
		return fmt.Errorf("mem eject %s: %w", v.Name, err)
	}
	return nil
}

// Usage implements ramdisk.Engine: used bytes are the files' sizes; held is
// the same, as on tmpfs.
func (m *Mem) Usage(ctx context.Context, v ramdisk.Volume) (ramdisk.Usage, error) {
	m.mu.Lock()
	cur, ok := m.vols[v.Name]
	err := m.failed("usage")
	m.mu.Unlock()
	if err != nil {
		return ramdisk.Usage{}, err
	}
	if !ok {
		return ramdisk.Usage{}, fmt.Errorf("mem usage %s: %w", v.Name, ramdisk.ErrNotFound)
	}
	var used ramdisk.Size
	var files int64
	filepath.WalkDir(cur.MountPoint, func(p string, d fs.DirEntry, err error) error {
		if err == nil && p != cur.MountPoint {
			files++
			if info, e := d.Info(); e == nil && info.Mode().IsRegular() {
				used += ramdisk.Size(info.Size())
			}
		}
		return nil
	})
	free := cur.Size - used
	if free < 0 {
		free = 0
	}
	return ramdisk.Usage{Size: cur.Size, Used: used, Free: free, Held: used, HeldKnown: true, Files: files, At: time.Now()}, nil
}

// Memory implements ramdisk.Engine.
func (m *Mem) Memory(ctx context.Context) (ramdisk.Memory, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.failed("memory"); err != nil {
		return ramdisk.Memory{}, err
	}
	return m.mem, nil
}
