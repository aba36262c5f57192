package ramdisk

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func macCaps() Caps {
	return Caps{OS: "darwin", FileSystems: []FileSystem{APFS, APFSCase, HFSPlus, HFSPlusCase, TmpFS},
		NeedsAdmin: []FileSystem{TmpFS}, MountRoot: "/Volumes", LazyThreshold: DiskImageLazyThreshold}
}

func linuxCaps() Caps {
	return Caps{OS: "linux", FileSystems: []FileSystem{TmpFS, ZRAM}, MountRoot: "/mnt/rambar", CaseSensitiveNames: true}
}

func TestAllocationFor(t *testing.T) {
	tests := []struct {
		fs   FileSystem
		size Size
		want Allocation
	}{
		{APFS, 512 * MiB, AllocUpfront},
		{APFS, 3 * GiB, AllocUpfront},
		{HFSPlus, 4095 * MiB, AllocUpfront}, // seed: 4,095 MiB took 4,202 MB at attach
		{APFS, 4096 * MiB, AllocOnWrite},    // seed: 4,096 MiB took 9 MB
		{HFSPlusCase, 16 * GiB, AllocOnWrite},
		{TmpFS, 512 * MiB, AllocOnWrite},
		{ZRAM, 1 * GiB, AllocOnWrite},
	}
	for _, tt := range tests {
		if got := AllocationFor(tt.fs, tt.size); got != tt.want {
			t.Errorf("AllocationFor(%s, %v) = %s, want %s", tt.fs, tt.size, got, tt.want)
		}
	}
}

// A tmpfs where the OS cuts it to a share of memory (macOS: half) is planned
// at the size it will really have, and the plan says so; a smaller one, other
// file systems and Linux are unchanged.
func TestPlanTmpfsShare(t *testing.T) {
	caps := macCaps()
	caps.TmpFSShare = 50
	f := Facts{Caps: caps, Memory: Memory{Physical: 32 * GiB, Free: 30 * GiB}}
	p, err := NewPlan(Request{Name: "Big", Size: 20 * GiB, FS: TmpFS}, f)
	if err != nil || p.Size != 16*GiB || len(p.Notes) == 0 || !strings.Contains(fmt.Sprint(p.Notes), "at most 50% of memory here: it will be 16 GiB, not 20 GiB") {
		t.Errorf("20 GiB tmpfs on 32 GiB: %+v, %v", p, err)
	}
	for _, r := range []Request{{Name: "Small", Size: 8 * GiB, FS: TmpFS}, {Name: "Image", Size: 20 * GiB, FS: APFS}} {
		if p, err := NewPlan(r, f); err != nil || p.Size != r.Size {
			t.Errorf("%+v: planned %v, %v", r, p.Size, err)
		}
	}
	if p, err := NewPlan(Request{Name: "Lin", Size: 20 * GiB, FS: TmpFS}, Facts{Caps: linuxCaps(), Memory: f.Memory}); err != nil || p.Size != 20*GiB {
		t.Errorf("Linux: planned %v, %v", p.Size, err)
	}
}

func TestNewPlan(t *testing.T) {
	mem16 := Memory{Physical: 16 * GiB, Free: 8 * GiB}
	tests := []struct {
		name      string
		req       Request
		facts     Facts
		wantErr   error
		errSays   string
		errLacks  string
		alloc     Allocation
		commit    Size
		fs        FileSystem
		mount     string
		notesSay  []string // each must appear in some note
		notesLack []string
	}{
		{
			name: "4G APFS grows as written", req: Request{Name: "Scratch", Size: 4 * GiB},
			facts: Facts{Caps: macCaps(), Memory: mem16},
			alloc: AllocOnWrite, fs: APFS, mount: "/Volumes/Scratch",
			notesSay: []string{"only as files are written", "deleting files does not give memory back"}, notesLack: []string{"4 GiB disk costs less"},
		},
		{
			name: "3.5G is told 4G costs less", req: Request{Name: "Scratch", Size: 3584 * MiB, FS: HFSPlus},
			facts: Facts{Caps: macCaps(), Memory: mem16},
			alloc: AllocUpfront, commit: 3584 * MiB, fs: HFSPlus,
			notesSay: []string{"4 GiB disk costs less", "takes all 3.5 GiB"},
		},
		{
			name: "1G commits now without the 4G advice", req: Request{Name: "Small", Size: GiB},
			facts: Facts{Caps: macCaps(), Memory: mem16},
			alloc: AllocUpfront, commit: GiB, fs: APFS, notesLack: []string{"4 GiB disk costs less"},
		},
		{
			name: "tmpfs on macOS needs admin", req: Request{Name: "T", Size: GiB, FS: TmpFS},
			facts: Facts{Caps: macCaps(), Memory: mem16},
			alloc: AllocOnWrite, fs: TmpFS, notesSay: []string{"administrator"}, notesLack: []string{"does not give memory back"},
		},
		{
			name: "linux default is tmpfs", req: Request{Name: "Scratch", Size: 2 * GiB},
			facts: Facts{Caps: linuxCaps(), Memory: mem16},
			alloc: AllocOnWrite, fs: TmpFS, mount: "/mnt/rambar/Scratch",
		},
		{
			name: "swapping machine is warned", req: Request{Name: "S", Size: GiB, FS: TmpFS},
			facts: Facts{Caps: linuxCaps(), Memory: Memory{Physical: 16 * GiB, SwapUsed: 3 * GiB}},
			alloc: AllocOnWrite, fs: TmpFS, notesSay: []string{"3 GiB of swap"},
		},
		{
			name: "larger than physical minus 2 GiB refused", req: Request{Name: "Huge", Size: 15 * GiB},
			facts:   Facts{Caps: macCaps(), Memory: mem16},
			wantErr: ErrTooLarge, errSays: "--force",
		},
		{
			name: "exactly physical minus 2 GiB allowed", req: Request{Name: "Edge", Size: 14 * GiB},
			facts: Facts{Caps: macCaps(), Memory: mem16}, alloc: AllocOnWrite, fs: APFS,
		},
		{
			name: "held memory counts toward the limit", req: Request{Name: "More", Size: 8 * GiB},
			facts:   Facts{Caps: macCaps(), Memory: mem16, Held: 7 * GiB},
			wantErr: ErrTooLarge,
		},
		{
			name: "forced past the limit warns", req: Request{Name: "Huge", Size: 32 * GiB, Force: true},
			facts: Facts{Caps: macCaps(), Memory: Memory{Physical: 16 * GiB, Free: 8 * GiB, SwapTotal: GiB}}, alloc: AllocOnWrite, fs: APFS,
			notesSay: []string{"forced", "pushes memory to swap"},
		},
		{
			name: "forced past the limit, no swap: the out-of-memory killer", req: Request{Name: "Huge", Size: 32 * GiB, Force: true},
			facts: Facts{Caps: linuxCaps(), Memory: mem16}, alloc: AllocOnWrite, fs: TmpFS,
			notesSay: []string{"forced", "out-of-memory killer"}, notesLack: []string{"swap"},
		},
		{
			name: "name already mounted", req: Request{Name: "scratch", Size: GiB},
			facts:   Facts{Caps: macCaps(), Memory: mem16, Mounted: []Volume{{Name: "Scratch", MountPoint: "/Volumes/Scratch"}}},
			wantErr: ErrExists,
		},
		{
			name: "name taken by another volume", req: Request{Name: "Backup", Size: GiB},
			facts:   Facts{Caps: macCaps(), Memory: mem16, Taken: []string{"Backup"}},
			wantErr: ErrExists, errSays: `"Backup 1"`,
		},
		{
			name: "hidden on linux is shown, and says so", req: Request{Name: "H", Size: GiB, Hidden: true},
			facts: Facts{Caps: linuxCaps(), Memory: mem16}, alloc: AllocOnWrite, fs: TmpFS,
			notesSay: []string{"--hidden has no effect on Linux: only macOS's Finder hides a disk"},
		},
		{
			name: "name taken on linux", req: Request{Name: "Backup", Size: GiB},
			facts:   Facts{Caps: linuxCaps(), Memory: mem16, Taken: []string{"Backup"}},
			wantErr: ErrExists, errSays: "another volume is mounted at ", errLacks: "macOS",
		},
		{
			name: "macOS: a name in other letter case names the mounted one", req: Request{Name: "ADVCASE", Size: GiB},
			facts:   Facts{Caps: macCaps(), Memory: mem16, Mounted: []Volume{{Name: "advCase", MountPoint: "/Volumes/advCase"}}, Taken: []string{"advCase"}},
			wantErr: ErrExists, errSays: `"advCase" at /Volumes/advCase (names differ only in letter case`,
		},
		{
			name: "macOS: another volume in other letter case names its real path", req: Request{Name: "BACKUP", Size: GiB},
			facts:   Facts{Caps: macCaps(), Memory: mem16, Taken: []string{"Backup"}},
			wantErr: ErrExists, errSays: "/Volumes/Backup is mounted",
		},
		{
			name: "linux: names in other letter case are other disks", req: Request{Name: "ncwork", Size: GiB},
			facts: Facts{Caps: linuxCaps(), Memory: mem16, Mounted: []Volume{{Name: "ncWork", MountPoint: "/mnt/rambar/ncWork"}}, Taken: []string{"ncWork"}},
			alloc: AllocOnWrite, fs: TmpFS,
		},
		{
			name: "bad name", req: Request{Name: "a:b", Size: GiB},
			facts: Facts{Caps: macCaps(), Memory: mem16}, wantErr: ErrName,
		},
		{
			name: "zero size", req: Request{Name: "Z", Size: 0},
			facts: Facts{Caps: macCaps(), Memory: mem16}, wantErr: ErrSize,
		},
		{
			name: "APFS on linux", req: Request{Name: "A", Size: GiB, FS: APFS},
			facts: Facts{Caps: linuxCaps(), Memory: mem16}, wantErr: ErrUnsupported, errSays: "not supported here (Linux)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewPlan(tt.req, tt.facts)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("NewPlan: got %v, want %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.errSays) {
					t.Errorf("error %q does not say %q", err, tt.errSays)
				}
				if tt.errLacks != "" && strings.Contains(err.Error(), tt.errLacks) {
					t.Errorf("error %q says %q", err, tt.errLacks)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewPlan: %v", err)
			}
			if p.Allocation != tt.alloc || p.CommitNow != tt.commit || p.FS != tt.fs {
				t.Errorf("plan %+v: want alloc %s commit %v fs %s", p, tt.alloc, tt.commit, tt.fs)
			}
			if tt.mount != "" && p.MountPoint != tt.mount {
				t.Errorf("mount point %q, want %q", p.MountPoint, tt.mount)
			}
			var all []string
			for _, n := range p.Notes {
				all = append(all, n.Text)
			}
			text := strings.Join(all, "\n")
			for _, s := range tt.notesSay {
				if !strings.Contains(text, s) {
					t.Errorf("notes lack %q:\n%s", s, text)
				}
			}
			for _, s := range tt.notesLack {
				if strings.Contains(text, s) {
					t.Errorf("notes should not say %q:\n%s", s, text)
				}
			}
		})
	}
}

func TestPlanSummary(t *testing.T) {
	p, err := NewPlan(Request{Name: "Scratch", Size: 3 * GiB, FS: HFSPlus}, Facts{Caps: macCaps()})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Summary(), "Scratch: 3 GiB HFS+, commits 3 GiB now"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	p, _ = NewPlan(Request{Name: "Big", Size: 8 * GiB}, Facts{Caps: macCaps()})
	if got, want := p.Summary(), "Big: 8 GiB APFS, grows as written"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}

func TestUsageFigures(t *testing.T) {
	tests := []struct {
		name    string
		u       Usage
		pinned  Size
		reclaim bool
		full    bool
		ratio   float64
	}{
		{"seed: 1 GiB written then deleted on 4 GiB", Usage{Size: 4 * GiB, Used: 0, Held: 1062 * MiB, HeldKnown: true}, 1062 * MiB, true, false, 0},
		{"small gap", Usage{Size: 4 * GiB, Used: GiB, Held: GiB + 100*MiB, HeldKnown: true}, 100 * MiB, false, false, 0},
		{"gap over 256M but under 10%", Usage{Size: 8 * GiB, Used: 0, Held: 300 * MiB, HeldKnown: true}, 300 * MiB, false, false, 0},
		{"held unknown", Usage{Size: GiB, Used: 950 * MiB}, 0, false, true, 0},
		{"zram 3x", Usage{Size: GiB, Used: 300 * MiB, Held: 100 * MiB, Stored: 300 * MiB, HeldKnown: true}, 0, false, false, 3},
		{"fresh zram with discard: ext4's own blocks are not pinned", Usage{Size: GiB, Used: 24 * KiB, Held: 2 * MiB, Stored: 8 * MiB, HeldKnown: true, FreesDeleted: true}, 0, false, false, 4},
		{"zram without discard, 600 MiB deleted", Usage{Size: GiB, Used: 0, Held: 600 * MiB, Stored: 600 * MiB, HeldKnown: true}, 600 * MiB, true, false, 1},
		{"zram without discard, half deleted", Usage{Size: GiB, Used: 100 * MiB, Held: 50 * MiB, Stored: 200 * MiB, HeldKnown: true}, 25 * MiB, false, false, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.u.Pinned(); got != tt.pinned {
				t.Errorf("Pinned = %v, want %v", got, tt.pinned)
			}
			if got := tt.u.ReclaimWorthwhile(); got != tt.reclaim {
				t.Errorf("ReclaimWorthwhile = %v", got)
			}
			if got := tt.u.NearlyFull(); got != tt.full {
				t.Errorf("NearlyFull = %v", got)
			}
			if got := tt.u.CompressionRatio(); got != tt.ratio {
				t.Errorf("CompressionRatio = %v", got)
			}
		})
	}
}

func TestBusyError(t *testing.T) {
	e := &BusyError{Volume: "Scratch", Holders: []Holder{{PID: 42, Command: "vim"}, {PID: 7, Command: "Finder"}}}
	if !errors.Is(e, ErrBusy) {
		t.Error("BusyError is not ErrBusy")
	}
	if got := e.Error(); !strings.Contains(got, "vim (pid 42), Finder (pid 7)") || !strings.Contains(got, "--force") {
		t.Errorf("Error() = %q", got)
	}
}

func TestDefaultPaths(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		goos     string
		env      map[string]string
		settings string
		data     string
	}{
		{"darwin", map[string]string{"HOME": "/Users/ann"}, "/Users/ann/Library/Application Support/RAMBar/Settings.plist", "/Users/ann/Library/Application Support/RAMBar/Data"},
		{"linux", map[string]string{"HOME": "/home/ann"}, "/home/ann/.config/rambar/settings.plist", "/home/ann/.local/share/rambar"},
		{"linux", map[string]string{"HOME": "/home/ann", "XDG_CONFIG_HOME": "/c", "XDG_DATA_HOME": "/d"}, "/c/rambar/settings.plist", "/d/rambar"},
		{"linux", map[string]string{"RAMBAR_HOME": "/t"}, "/t/settings.plist", "/t/data"},
	}
	for _, tt := range tests {
		p, err := DefaultPaths(tt.goos, env(tt.env))
		if err != nil || p.Settings != tt.settings || p.Data != tt.data {
			t.Errorf("DefaultPaths(%s, %v) = %+v, %v", tt.goos, tt.env, p, err)
		}
	}
	if _, err := DefaultPaths("darwin", env(nil)); err == nil {
		t.Error("no HOME accepted")
	}
}

// TestHiddenOnLinux: a hidden request on Linux plans a shown disk, so the
// plan and the disk agree; macOS keeps it hidden.
func TestHiddenOnLinux(t *testing.T) {
	mem := Memory{Physical: 16 * GiB, Free: 8 * GiB}
	for _, c := range []struct {
		caps Caps
		want bool
	}{{linuxCaps(), false}, {macCaps(), true}} {
		p, err := NewPlan(Request{Name: "H", Size: GiB, Hidden: true}, Facts{Caps: c.caps, Memory: mem})
		if err != nil || p.Hidden != c.want {
			t.Errorf("%s: hidden %v, %v; want %v", c.caps.OS, p.Hidden, err, c.want)
		}
	}
}
