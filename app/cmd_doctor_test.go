package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// macLike adds the macOS engine's optional extras to the in-memory engine.
type macLike struct {
	*ramdisktest.Mem
	captured string
}

func (m *macLike) AttachTool(context.Context) string { return "diskutil" }
func (m *macLike) Tools() []string                   { return []string{"sh", "no-such-tool-rambar"} }
func (m *macLike) FreePercent(context.Context) (int, error) {
	return 86, nil
}
func (m *macLike) Capture(_ context.Context, dir string) ([]string, error) {
	m.captured = dir
	p := filepath.Join(dir, "vm_stat.txt")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return []string{p}, os.WriteFile(p, []byte("Mach Virtual Memory Statistics: (page size of 16384 bytes)\n"), 0o644)
}

func doctorApp(t *testing.T, e ramdisk.Engine) (*App, *bytes.Buffer) {
	var out, errb bytes.Buffer
	return &App{Stdout: &out, Stderr: &errb, NewEngine: func() (ramdisk.Engine, error) { return e, nil }}, &out
}

func newMem(t *testing.T) *ramdisktest.Mem {
	return ramdisktest.NewMem(t.TempDir(), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB, SwapTotal: 2 * ramdisk.GiB, SwapUsed: ramdisk.GiB, Pressure: "normal"})
}

func TestDoctorPlainEngine(t *testing.T) {
	m := newMem(t)
	p, err := ramdisk.NewPlan(ramdisk.Request{Name: "Scratch", Size: 64 * ramdisk.MiB, Force: true}, ramdisk.Facts{Caps: m.Caps()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Create(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	a, out := doctorApp(t, m)
	if code := a.Main([]string{"doctor"}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	s := out.String()
	for _, want := range []string{"engine: mem", "Memory taken:", "16 GiB physical", "1 GiB of 2 GiB used", "Pressure:", "Scratch"} {
		if !strings.Contains(s, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, s)
		}
	}
	// --capture needs an engine that can capture.
	a, _ = doctorApp(t, m)
	if code := a.Main([]string{"doctor", "--capture", t.TempDir()}); code != exitUnsupported {
		t.Errorf("--capture on a plain engine: exit %d", code)
	}
}

func TestDoctorMacExtrasJSON(t *testing.T) {
	e := &macLike{Mem: newMem(t)}
	a, out := doctorApp(t, e)
	dir := filepath.Join(t.TempDir(), "fixtures")
	if code := a.Main([]string{"doctor", "--json", "--capture", dir}); code != exitOK {
		t.Fatalf("exit %d", code)
	}
	var r doctorReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if r.Version != 1 || r.AttachTool == nil || *r.AttachTool != "diskutil" || r.FreePercent == nil || *r.FreePercent != 86 || r.Memory == nil || r.Memory.Physical != 16*ramdisk.GiB {
		t.Errorf("report %+v", r)
	}
	if len(r.Tools) != 2 || !r.Tools[0].Installed || r.Tools[1].Installed {
		t.Errorf("tools %+v", r.Tools)
	}
	if e.captured != dir || len(r.Captured) != 1 {
		t.Errorf("capture went to %q, files %q", e.captured, r.Captured)
	}
	if _, err := os.Stat(filepath.Join(dir, "vm_stat.txt")); err != nil {
		t.Error(err)
	}
	a, out = doctorApp(t, e)
	if code := a.Main([]string{"doctor"}); code != exitOK || !strings.Contains(out.String(), "diskutil image attach --noMount") || !strings.Contains(out.String(), "no-such-tool-rambar") {
		t.Errorf("text report (exit %d):\n%s", code, out.String())
	}
	a, _ = doctorApp(t, e)
	if code := a.Main([]string{"doctor", "extra"}); code != exitUsage {
		t.Errorf("extra argument: exit %d", code)
	}
}
