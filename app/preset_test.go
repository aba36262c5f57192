package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"rambar/settingsfile"
	"reflect"
	"strings"
	"testing"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// presetApp is an App over the in-memory engine (a 16 GiB machine) with its
// settings in a temp folder.
type presetApp struct {
	*App
	mem            *ramdisktest.Mem
	stdout, stderr bytes.Buffer
}

func newPresetApp(t *testing.T) *presetApp {
	t.Helper()
	dir := t.TempDir()
	mem := ramdisktest.NewMem(filepath.Join(dir, "volumes"), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB})
	p := &presetApp{mem: mem}
	p.App = &App{
		Stdout: &p.stdout, Stderr: &p.stderr, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return mem, nil },
		Paths:     ramdisk.Paths{Settings: filepath.Join(dir, "config", "settings.plist"), Data: filepath.Join(dir, "data")},
		Getenv:    func(string) string { return "" },
	}
	return p
}

// run runs one command line and returns its exit code, stdout and stderr.
func (p *presetApp) run(args ...string) (int, string, string) {
	p.stdout.Reset()
	p.stderr.Reset()
	p.engine = nil
	code := p.Main(args)
	return code, p.stdout.String(), p.stderr.String()
}

func (p *presetApp) settings(t *testing.T) ramdisk.Settings {
	t.Helper()
	s, err := settingsfile.Store{Path: p.Paths.Settings}.Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p *presetApp) fileBytes() string {
	b, _ := os.ReadFile(p.Paths.Settings)
	return string(b)
}

func TestPresetAddEditRemove(t *testing.T) {
	p := newPresetApp(t)
	mirrorDir := t.TempDir()
	steps := []struct {
		args     []string
		wantCode int
		wantOut  string // substring of stdout (or stderr when the code is not 0)
	}{
		{[]string{"preset", "list"}, exitOK, "No presets"},
		{[]string{"preset", "add", "Scratch", "4G", "--auto-mount"}, exitOK, "Added preset Scratch: 4G, mounts at login, contents discarded"},
		{[]string{"preset", "add", "--fs", "hfs+", "Cache", "25%", "--hidden", "--keep", "--save-every", "10m", "--snapshots", "3"}, exitOK,
			"Added preset Cache: 25%, HFS+, hidden, contents kept, saved every 10 min, 3 snapshots"},
		{[]string{"preset", "add", "Site", "1G", "--mirror", mirrorDir}, exitOK, "mirrors " + mirrorDir},
		{[]string{"preset", "list"}, exitOK, "Cache    25% (4 GiB)  HFS+, hidden"},
		{[]string{"preset", "edit", "scratch", "2G", "--no-auto-mount", "--fs", "apfs"}, exitOK, "Changed preset Scratch: 2G, APFS, contents discarded"},
		{[]string{"preset", "edit", "Cache", "--discard"}, exitOK, "Changed preset Cache: 25%, HFS+, hidden, contents discarded"},
		{[]string{"preset", "edit", "Site", "--size", "3G", "--auto-mount"}, exitOK, "Changed preset Site: 3G, mounts at login, contents mirrors"},
		{[]string{"preset", "rm", "CACHE"}, exitOK, "Removed preset Cache"},
		{[]string{"preset", "rm", "Cache"}, exitNotFound, `preset "Cache": no such preset (presets: Scratch, Site)`},
	}
	for _, s := range steps {
		code, out, errOut := p.run(s.args...)
		got := out
		if s.wantCode != exitOK {
			got = errOut
		}
		if code != s.wantCode || !strings.Contains(got, s.wantOut) {
			t.Fatalf("rambar %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(s.args, " "), code, out, errOut, s.wantCode, s.wantOut)
		}
	}
	want := []ramdisk.Preset{
		{Name: "Scratch", Size: "2G", FS: ramdisk.APFS},
		{Name: "Site", Size: "3G", AutoMount: true, Contents: ramdisk.Mirror, MirrorPath: mirrorDir},
	}
	got := p.settings(t).Presets
	if !reflect.DeepEqual(got, want) {
		t.Errorf("presets on disk = %+v, want %+v", got, want)
	}
	code, out, _ := p.run("preset", "list", "--json")
	var doc struct {
		Version int          `json:"version"`
		Presets []presetJSON `json:"presets"`
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil {
		t.Fatalf("list --json: exit %d, %v: %s", code, err, out)
	}
	if doc.Version != 1 || len(doc.Presets) != 2 || doc.Presets[1].Contents != "mirror" || doc.Presets[1].SizeBytes == nil ||
		*doc.Presets[1].SizeBytes != 3*ramdisk.GiB || !doc.Presets[1].AutoMount || doc.Presets[0].Contents != "discard" {
		t.Errorf("list --json = %+v", doc)
	}
}

// TestPresetBadInput: every refusal exits non-zero with a one-line message
// and leaves the settings file byte for byte as it was.
func TestPresetBadInput(t *testing.T) {
	p := newPresetApp(t)
	if code, _, errOut := p.run("preset", "add", "Scratch", "1G", "--keep"); code != 0 {
		t.Fatalf("setup: %s", errOut)
	}
	before := p.fileBytes()
	long := strings.Repeat("x", 300)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"preset", "add", "Big", "0"}, exitUsage, "invalid size"},
		{[]string{"preset", "add", "Big", "-1G"}, exitUsage, "must be positive"},
		{[]string{"preset", "add", "Big", "3.5Q"}, exitUsage, "unknown unit"},
		{[]string{"preset", "add", "a/b", "1G"}, exitUsage, "may not contain '/' or ':'"},
		{[]string{"preset", "add", "a:b", "1G"}, exitUsage, "may not contain '/' or ':'"},
		{[]string{"preset", "add", "a\x01b", "1G"}, exitUsage, "control characters"},
		{[]string{"preset", "add", long, "1G"}, exitUsage, "300 bytes long"},
		{[]string{"preset", "add", "Big", "1G", "--fs", "fat32"}, exitUsage, "unknown file system"},
		{[]string{"preset", "add", "Big", "1G", "--fs", "zram"}, exitUnsupported, `"zram" is not supported here (mem): use one of tmpfs, apfs, hfs+`},
		{[]string{"preset", "edit", "Scratch", "--fs", "apfs-case"}, exitUnsupported, `"apfs-case" is not supported here`},
		{[]string{"preset", "add", "scratch", "1G"}, exitUsage, "a preset with that name exists"},
		{[]string{"preset", "add", "Big", "1G", "--keep", "--mirror", "/srv"}, exitUsage, "only one of"},
		{[]string{"preset", "add", "Big", "1G", "--save-every", "10m"}, exitUsage, "need kept or mirrored contents"},
		{[]string{"preset", "add", "Big", "1G", "--keep", "--save-every", "ten"}, exitUsage, "--save-every"},
		{[]string{"preset", "add", "Big", "1G", "--keep", "--save-every", "-5m"}, exitUsage, "--save-every"},
		{[]string{"preset", "add", "Big", "1G", "--keep", "--snapshots", "-2"}, exitUsage, "--snapshots"},
		{[]string{"preset", "add", "Big", "1G", "--mirror", ""}, exitUsage, "--mirror needs a folder"},
		{[]string{"preset", "add", "Big"}, exitUsage, "rambar preset add NAME SIZE"},
		{[]string{"preset", "add", "Big", "1G", "--bogus"}, exitUsage, "unknown flag --bogus"},
		{[]string{"preset", "edit", "Scratch"}, exitUsage, "nothing to change"},
		{[]string{"preset", "edit", "Nope", "2G"}, exitNotFound, "no such preset"},
		{[]string{"preset", "edit", "Scratch", "0"}, exitUsage, "invalid size"},
		{[]string{"preset", "edit", "Scratch", "--hidden", "--no-hidden"}, exitUsage, "contradict"},
		{[]string{"preset", "edit", "Scratch", "2G", "--size", "3G"}, exitUsage, "give the size once"},
		{[]string{"preset", "edit", "Scratch", "--discard", "--snapshots", "2"}, exitUsage, "need kept or mirrored contents"},
		{[]string{"preset", "rm"}, exitUsage, "rambar preset rm NAME"},
		{[]string{"preset", "frobnicate"}, exitUsage, "rambar preset add|edit|rm|list|mount"},
		{[]string{"preset"}, exitUsage, "rambar preset add|edit|rm|list|mount"},
	}
	for _, tt := range tests {
		code, _, errOut := p.run(tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.msg) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("rambar %q: exit %d, stderr %q; want exit %d and %q on one line", tt.args, code, errOut, tt.code, tt.msg)
		}
		if after := p.fileBytes(); after != before {
			t.Fatalf("rambar %q changed the settings file", tt.args)
		}
	}
}

// TestPresetRefusesUnreadableFile: with a corrupt settings file or one from a
// newer RAMBar, every verb that reads presets fails, says which file and why,
// and leaves it untouched.
func TestPresetRefusesUnreadableFile(t *testing.T) {
	for _, fixture := range []string{"settings-corrupt.plist", "settings-v4.plist"} {
		t.Run(fixture, func(t *testing.T) {
			p := newPresetApp(t)
			data, err := os.ReadFile(filepath.Join("..", "settingsfile", "testdata", fixture))
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(p.Paths.Settings), 0o700)
			if err := os.WriteFile(p.Paths.Settings, data, 0o600); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{"settings-corrupt.plist": "settings file is corrupt", "settings-v4.plist": "from a newer RAMBar"}[fixture]
			for _, args := range [][]string{
				{"preset", "add", "New", "1G"}, {"preset", "edit", "Future", "2G"}, {"preset", "rm", "Future"},
				{"preset", "list"}, {"preset", "list", "--json"}, {"preset", "mount", "Future"}, {"up"},
			} {
				code, out, errOut := p.run(args...)
				if code == 0 || !strings.Contains(errOut, want) || !strings.Contains(errOut, p.Paths.Settings) || !strings.Contains(errOut, "left as it is") {
					t.Errorf("rambar %q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
				}
			}
			if got := p.fileBytes(); got != string(data) {
				t.Errorf("settings file changed")
			}
			if vs, _ := p.mem.List(context.Background()); len(vs) != 0 {
				t.Errorf("disks were made: %+v", vs)
			}
		})
	}
}

// TestUp: `up` mounts the auto-mount presets that are not mounted, skips the
// mounted one, reports the one that fails, carries on past it, and exits 1.
func TestUp(t *testing.T) {
	p := newPresetApp(t)
	for _, args := range [][]string{
		{"preset", "add", "Alpha", "1G", "--auto-mount"},
		{"preset", "add", "Beta", "512M", "--auto-mount", "--hidden", "--fs", "hfs+"},
		{"preset", "add", "Huge", "64G", "--auto-mount"}, // more than the 16 GiB machine
		{"preset", "add", "Manual", "1G"},
		{"preset", "add", "Gamma", "25%", "--auto-mount", "--fs", "apfs"},
		{"create", "beta", "256M"}, // already mounted, under another letter case
	} {
		if code, _, errOut := p.run(args...); code != 0 {
			t.Fatalf("setup %q: %s", args, errOut)
		}
	}
	code, out, errOut := p.run("up")
	if code != exitError || !strings.Contains(errOut, "up: 1 of 4 auto-mount presets failed") {
		t.Errorf("up: exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	wantPrefixes := []string{"Mounted Alpha at ", "Skipped Beta: already mounted at ", "Failed Huge: ", "Mounted Gamma at "}
	if len(lines) != len(wantPrefixes) {
		t.Fatalf("up printed %d lines, want %d:\n%s", len(lines), len(wantPrefixes), out)
	}
	for i, w := range wantPrefixes {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("line %d = %q, want prefix %q", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[2], "too large") {
		t.Errorf("failure line does not say why: %q", lines[2])
	}
	vols, _ := p.mem.List(context.Background())
	got := map[string]ramdisk.Volume{}
	for _, v := range vols {
		got[v.Name] = v
	}
	if len(got) != 3 || got["Alpha"].Size != ramdisk.GiB || got["beta"].Size != 256*ramdisk.MiB ||
		got["Gamma"].Size != 4*ramdisk.GiB || got["Gamma"].FS != ramdisk.APFS {
		t.Errorf("disks after up = %+v", vols)
	}
	// Again, as JSON: everything that could be made is mounted, so only skips and the failure.
	code, out, _ = p.run("up", "--json")
	var doc struct {
		Version int      `json:"version"`
		Presets []upJSON `json:"presets"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || code != exitError {
		t.Fatalf("up --json: exit %d, %v\n%s", code, err, out)
	}
	var results []string
	for _, r := range doc.Presets {
		results = append(results, string(r.Result))
	}
	if strings.Join(results, " ") != "skipped skipped failed skipped" ||
		doc.Presets[0].Disk == nil || doc.Presets[2].Error == "" {
		t.Errorf("second up = %+v", doc.Presets)
	}
	// The failure says --force overrides, and up takes it.
	if !strings.Contains(doc.Presets[2].Error, "--force") {
		t.Errorf("failure does not offer --force: %q", doc.Presets[2].Error)
	}
	if code, out, errOut := p.run("up", "--force"); code != 0 || !strings.Contains(out, "Mounted Huge at ") {
		t.Errorf("up --force: exit %d, %q %q", code, out, errOut)
	}
	p.run("eject", "Huge")
	// With the failing preset gone, up succeeds.
	p.run("preset", "rm", "Huge")
	if code, out, errOut := p.run("up"); code != 0 || strings.Count(out, "Skipped") != 3 {
		t.Errorf("third up: exit %d, %q %q", code, out, errOut)
	}
}

func TestUpNothingToDo(t *testing.T) {
	p := newPresetApp(t)
	code, out, _ := p.run("up")
	if code != 0 || !strings.Contains(out, "No preset mounts at login") {
		t.Errorf("up with no settings: exit %d, %q", code, out)
	}
	if _, err := os.Stat(p.Paths.Settings); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("up wrote a settings file: %v", err)
	}
}

// TestMountPreset is the tray's "mount preset NAME".
func TestMountPreset(t *testing.T) {
	p := newPresetApp(t)
	p.run("preset", "add", "Work", "2G", "--fs", "hfs+", "--hidden")
	ctx := context.Background()
	p.stdout.Reset()
	plan, v, err := p.MountPreset(ctx, "work")
	if err != nil {
		t.Fatalf("MountPreset: %v", err)
	}
	if v.Name != "Work" || v.FS != ramdisk.HFSPlus || !v.Hidden || v.Size != 2*ramdisk.GiB || plan.Size != v.Size {
		t.Errorf("volume = %+v, plan = %+v", v, plan)
	}
	if p.stdout.Len() != 0 {
		t.Errorf("MountPreset printed %q", p.stdout.String())
	}
	if _, _, err := p.MountPreset(ctx, "Work"); !errors.Is(err, ramdisk.ErrExists) {
		t.Errorf("second MountPreset: %v, want ErrExists", err)
	}
	if _, _, err := p.MountPreset(ctx, "Play"); !errors.Is(err, ramdisk.ErrNoPreset) {
		t.Errorf("unknown preset: %v, want ErrNoPreset", err)
	}
	p.mem.Vanish("Work")
	if code, out, errOut := p.run("preset", "mount", "Work"); code != 0 || !strings.Contains(out, "Created Work at ") {
		t.Errorf("preset mount: exit %d, %q %q", code, out, errOut)
	}
	if code, _, errOut := p.run("preset", "mount", "Work"); code != exitExists {
		t.Errorf("preset mount of a mounted preset: exit %d, %q", code, errOut)
	}
}

// TestPresetMirrorRelative: a relative --mirror folder is stored absolute,
// resolved from where the command ran.
func TestPresetMirrorRelative(t *testing.T) {
	p := newPresetApp(t)
	wd, _ := os.Getwd()
	if code, _, errOut := p.run("preset", "add", "Site", "1G", "--mirror", "testdata/../site", "--create-folder"); code != 0 {
		t.Fatalf("add: %s", errOut)
	}
	got, err := p.settings(t).FindPreset("Site")
	if want := filepath.Join(wd, "site"); got.MirrorPath != want || got.Contents != ramdisk.Mirror {
		t.Errorf("preset = %+v (%v), want mirror of %s", got, err, want)
	}
}

// TestPresetRemoveWords: the note that a disk stays mounted is there only
// when one is.
func TestPresetRemoveWords(t *testing.T) {
	p := newPresetApp(t)
	for _, args := range [][]string{{"preset", "add", "A", "64M"}, {"preset", "add", "B", "64M"}, {"create", "b", "64M"}} {
		if code, _, errOut := p.run(args...); code != exitOK {
			t.Fatalf("%q: %s", args, errOut)
		}
	}
	if _, out, _ := p.run("preset", "rm", "A"); out != "Removed preset A\n" {
		t.Errorf("rm of an unmounted preset: %q", out)
	}
	if _, out, _ := p.run("preset", "rm", "B"); !strings.HasPrefix(out, "Removed preset B (its disk stays mounted at ") {
		t.Errorf("rm of a mounted preset: %q", out)
	}
}

// TestMirrorFolderMustExist: a --mirror folder that is not there is refused
// (a typo would become an empty disk and a new folder) unless --create-folder says
// it is new; nothing is made or recorded on a refusal.
func TestMirrorFolderMustExist(t *testing.T) {
	p := newPresetApp(t)
	missing := filepath.Join(t.TempDir(), "Sitess")
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"create", "Site", "64M", "--mirror", missing}, exitUsage, "it does not exist; pass --create-folder"},
		{[]string{"preset", "add", "Site", "64M", "--mirror", missing}, exitUsage, "it does not exist; pass --create-folder"},
		{[]string{"create", "Site", "64M", "--mirror", file}, exitUsage, "it is a file, not a folder"},
		{[]string{"create", "Site", "64M", "--create-folder"}, exitUsage, "--create-folder goes with --mirror"},
		{[]string{"preset", "add", "Site", "64M", "--keep", "--create-folder"}, exitUsage, "--create-folder goes with --mirror"},
	} {
		if code, out, errOut := p.run(c.args...); code != c.code || !strings.Contains(errOut, c.says) || out != "" {
			t.Errorf("%q: exit %d, %q %q; want %d saying %q", c.args, code, out, errOut, c.code, c.says)
		}
	}
	if vs, _ := p.mem.List(context.Background()); len(vs) != 0 || p.fileBytes() != "" {
		t.Fatalf("a refusal made %v / settings %q", vs, p.fileBytes())
	}
	for _, args := range [][]string{{"preset", "add", "Site", "64M", "--mirror", missing, "--create-folder"}, {"create", "Site", "64M", "--mirror", missing, "--create-folder"}} {
		if code, _, errOut := p.run(args...); code != exitOK {
			t.Errorf("%q: exit %d, %s", args, code, errOut)
		}
	}
}
