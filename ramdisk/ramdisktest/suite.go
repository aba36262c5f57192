package ramdisktest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"rambar/ramdisk"
)

// Harness is what the conformance suite needs from one engine under test.
type Harness struct {
	Engine ramdisk.Engine
	// FS is the file system to create (empty: the engine's default).
	FS ramdisk.FileSystem
	// Size of the disks the suite makes (default 16 MiB).
	Size ramdisk.Size
	// Hold makes v busy (a process with a file open or its cwd on it) until
	// release is called.
	Hold func(t *testing.T, v ramdisk.Volume) (release func())
	// Write puts a file on v. Default: os.WriteFile under v.MountPoint, which
	// suits any engine whose mounts are real folders here.
	Write func(t *testing.T, v ramdisk.Volume, name string, data []byte)
	// Prefix makes names unique per run, so suites can run beside real disks.
	Prefix string
}

// Run is the conformance suite: every Engine passes it. newHarness is called
// once per subtest and must give a clean engine state (or at least no disks
// with the suite's names).
func Run(t *testing.T, newHarness func(t *testing.T) Harness) {
	s := suite{ctx: context.Background(), newHarness: newHarness}
	t.Run("CreateListUsageEject", s.createListUsageEject)
	t.Run("EjectGoneIsNotFound", s.ejectGoneIsNotFound)
	t.Run("DuplicateNameRefused", s.duplicateNameRefused)
	t.Run("BusyThenForce", s.busyThenForce)
	t.Run("Memory", s.memory)
}

// suite holds what every subtest of Run shares.
type suite struct {
	ctx        context.Context
	newHarness func(t *testing.T) Harness
}

func (s suite) setup(t *testing.T, name string) (Harness, ramdisk.Plan) {
	h := s.newHarness(t)
	if h.Size == 0 {
		h.Size = 16 * ramdisk.MiB
	}
	if h.Write == nil {
		h.Write = func(t *testing.T, v ramdisk.Volume, name string, data []byte) {
			t.Helper()
			if err := os.WriteFile(filepath.Join(v.MountPoint, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	caps := h.Engine.Caps()
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: h.Prefix + name, Size: h.Size, FS: h.FS, Force: true}, ramdisk.Facts{Caps: caps})
	if err != nil {
		t.Fatalf("NewPlan: %v", err)
	}
	return h, p
}

func (s suite) create(t *testing.T, h Harness, p ramdisk.Plan) ramdisk.Volume {
	t.Helper()
	v, err := h.Engine.Create(s.ctx, p)
	if err != nil {
		t.Fatalf("Create(%s): %v", p.Name, err)
	}
	t.Cleanup(func() { h.Engine.Eject(s.ctx, v, true) })
	return v
}

func (s suite) find(t *testing.T, e ramdisk.Engine, name string) (ramdisk.Volume, bool) {
	t.Helper()
	vs, err := e.List(s.ctx)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, v := range vs {
		if v.Name == name {
			return v, true
		}
	}
	return ramdisk.Volume{}, false
}

func (s suite) createListUsageEject(t *testing.T) {
	h, p := s.setup(t, "Conform1")
	v := s.create(t, h, p)
	if v.Name != p.Name || v.MountPoint == "" || v.FS != p.FS {
		t.Fatalf("Create returned %+v for plan %+v", v, p)
	}
	got, ok := s.find(t, h.Engine, p.Name)
	if !ok {
		t.Fatalf("List does not show %s", p.Name)
	}
	if got.MountPoint != v.MountPoint || got.FS != v.FS {
		t.Errorf("List shows %+v, Create gave %+v", got, v)
	}
	if got.Size < p.Size*9/10 || got.Size > p.Size*11/10 {
		t.Errorf("List size %v, planned %v", got.Size, p.Size)
	}
	u0, err := h.Engine.Usage(s.ctx, got)
	if err != nil {
		t.Fatalf("Usage: %v", err)
	}
	h.Write(t, got, "one-mib.bin", make([]byte, ramdisk.MiB))
	u1, err := h.Engine.Usage(s.ctx, got)
	if err != nil {
		t.Fatalf("Usage after write: %v", err)
	}
	if u1.Used-u0.Used < ramdisk.MiB/2 {
		t.Errorf("Used went %v -> %v after writing 1 MiB", u0.Used, u1.Used)
	}
	if u1.Size <= 0 || u1.Used > u1.Size {
		t.Errorf("Usage %+v not sane", u1)
	}
	if err := h.Engine.Eject(s.ctx, got, false); err != nil {
		t.Fatalf("Eject: %v", err)
	}
	if _, ok := s.find(t, h.Engine, p.Name); ok {
		t.Errorf("%s still listed after Eject", p.Name)
	}
}

func (s suite) ejectGoneIsNotFound(t *testing.T) {
	h, p := s.setup(t, "Conform2")
	v := s.create(t, h, p)
	if err := h.Engine.Eject(s.ctx, v, false); err != nil {
		t.Fatalf("Eject: %v", err)
	}
	if err := h.Engine.Eject(s.ctx, v, false); !errors.Is(err, ramdisk.ErrNotFound) {
		t.Errorf("second Eject: got %v, want ErrNotFound", err)
	}
	if _, err := h.Engine.Usage(s.ctx, v); err == nil {
		t.Errorf("Usage of an ejected disk succeeded")
	}
}

func (s suite) duplicateNameRefused(t *testing.T) {
	h, p := s.setup(t, "Conform3")
	s.create(t, h, p)
	if _, err := h.Engine.Create(s.ctx, p); !errors.Is(err, ramdisk.ErrExists) {
		t.Errorf("second Create: got %v, want ErrExists", err)
	}
	vs, _ := h.Engine.List(s.ctx)
	n := 0
	for _, v := range vs {
		if v.Name == p.Name {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d disks named %s after a refused duplicate, want 1", n, p.Name)
	}
}

func (s suite) busyThenForce(t *testing.T) {
	h, p := s.setup(t, "Conform4")
	if h.Hold == nil {
		t.Fatal("harness has no Hold: every engine must show busy detection")
	}
	v := s.create(t, h, p)
	release := h.Hold(t, v)
	defer release()
	err := h.Engine.Eject(s.ctx, v, false)
	var be *ramdisk.BusyError
	if !errors.As(err, &be) || !errors.Is(err, ramdisk.ErrBusy) {
		t.Fatalf("Eject of a held disk: got %v, want *BusyError", err)
	}
	if len(be.Holders) == 0 {
		t.Errorf("BusyError names no holders: %v", be)
	}
	if _, ok := s.find(t, h.Engine, p.Name); !ok {
		t.Fatalf("a refused Eject removed the disk")
	}
	if err := h.Engine.Eject(s.ctx, v, true); err != nil {
		t.Fatalf("forced Eject: %v", err)
	}
	if _, ok := s.find(t, h.Engine, p.Name); ok {
		t.Errorf("still listed after forced Eject")
	}
}

func (s suite) memory(t *testing.T) {
	h, _ := s.setup(t, "Conform5")
	m, err := h.Engine.Memory(s.ctx)
	if err != nil {
		t.Fatalf("Memory: %v", err)
	}
	if m.Physical <= 0 || m.Free < 0 || m.Free > m.Physical || m.SwapUsed < 0 {
		t.Errorf("Memory %+v not sane", m)
	}
}
