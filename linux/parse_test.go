package linux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
)

func TestParseMountInfo(t *testing.T) {
	type want struct {
		line                  int // index in the parsed table
		mountPoint, source    string
		fsType, superOpt, val string
		major, minor          uint32
	}
	tests := []struct {
		file  string
		count int
		want  []want
	}{
		{"mountinfo-debian12.txt", 25, []want{
			{20, "/tmp/rbtest/root/Scratch Disk", "rambar", "tmpfs", "size", "16384k", 0, 39},
			{21, "/tmp/rbtest/root/tab\tx", "rambar", "tmpfs", "size", "8192k", 0, 40},
			{22, `/tmp/rbtest/root/back\slash`, "hand made", "tmpfs", "size", "4096k", 0, 41},
			{24, "/tmp/rbtest/root/Plain", "rambar", "tmpfs", "size", "2048k", 0, 43},
			{20, "/tmp/rbtest/root/Scratch Disk", "rambar", "tmpfs", "uid", "1000", 0, 39},
		}},
		{"mountinfo-zram-debian12.txt", 1, []want{
			{0, "/mnt/rambar/Packed", "/dev/zram1", "ext4", "discard", "", 253, 1},
		}},
		{"mountinfo-proc5.txt", 4, []want{
			{0, "/mnt2", "/dev/root", "ext3", "errors", "continue", 98, 0},
			{1, "/mnt/rambar/Build", "rambar", "tmpfs", "mode", "700", 0, 45},
			{2, "/mnt/rambar/Packed", "/dev/zram1", "ext4", "discard", "", 252, 1},
			{3, `/mnt/rambar/odd\\name`, `odd\\`, "tmpfs", "size", "1024k", 0, 46},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ms, err := parseMountInfo(f)
			if err != nil {
				t.Fatalf("ParseMountInfo: %v", err)
			}
			if len(ms) != tt.count {
				t.Errorf("%d mounts, want %d", len(ms), tt.count)
			}
			for _, w := range tt.want {
				if w.line >= len(ms) {
					t.Fatalf("no mount %d", w.line)
				}
				m := ms[w.line]
				if m.MountPoint != w.mountPoint || m.Source != w.source || m.FSType != w.fsType || m.Major != w.major || m.Minor != w.minor {
					t.Errorf("mount %d = %+v, want %q from %q (%s, %d:%d)", w.line, m, w.mountPoint, w.source, w.fsType, w.major, w.minor)
				}
				if v, ok := m.SuperOption(w.superOpt); !ok || v != w.val {
					t.Errorf("mount %d: option %s = %q, %v; want %q", w.line, w.superOpt, v, ok, w.val)
				}
			}
		})
	}
}

func TestParseMountInfoMalformed(t *testing.T) {
	for _, in := range []string{
		"36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw", // no separator
		"x 35 98:0 / /mnt rw - tmpfs t rw",
		"36 35 98-0 / /mnt rw - tmpfs t rw",
		"36 35 98:0 / /mnt rw -",
		"36 35",
	} {
		if _, err := parseMountInfo(strings.NewReader(in + "\n")); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ParseMountInfo(%q) = %v, want an error naming line 1", in, err)
		}
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:          "plain",
		`a\040b`:         "a b",
		`a\011b\012c`:    "a\tb\nc",
		`a\134b`:         `a\b`,
		`trailing\`:      `trailing\`,
		`short\04`:       `short\04`,
		`not\999octal`:   `not\999octal`,
		`too\400big`:     `too\400big`,
		`caf\303\251`:    "café",
		`\040\040lead`:   "  lead",
		`end\040`:        "end ",
		`mixed\\040`:     `mixed\ `,
		`x\0401\0402\04`: `x 1 2\04`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMemInfo(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "meminfo-debian12.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mi, err := parseMemInfo(f)
	if err != nil {
		t.Fatalf("ParseMemInfo: %v", err)
	}
	for k, want := range map[string]int64{
		"MemTotal":        24683656 * 1024,
		"MemAvailable":    24268536 * 1024,
		"SwapTotal":       0,
		"HugePages_Total": 0,
	} {
		if got, ok := mi[k]; !ok || got != want {
			t.Errorf("%s = %d, %v; want %d", k, got, ok, want)
		}
	}
	m, err := memoryFrom(mi, 5*ramdisk.MiB)
	if err != nil {
		t.Fatal(err)
	}
	want := ramdisk.Memory{Physical: 24683656 * 1024, Free: 24268536 * 1024, Compressed: 5 * ramdisk.MiB}
	if m != want {
		t.Errorf("MemoryFrom = %+v, want %+v", m, want)
	}
}

func TestMemoryFrom(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want ramdisk.Memory
		err  bool
	}{
		{"swapping", "MemTotal: 1000 kB\nMemAvailable: 200 kB\nSwapTotal: 500 kB\nSwapFree: 100 kB\n",
			ramdisk.Memory{Physical: 1000 * 1024, Free: 200 * 1024, SwapTotal: 500 * 1024, SwapUsed: 400 * 1024}, false},
		{"old kernel without MemAvailable", "MemTotal: 1000 kB\nMemFree: 100 kB\nCached: 50 kB\n",
			ramdisk.Memory{Physical: 1000 * 1024, Free: 150 * 1024}, false},
		{"no MemTotal", "MemFree: 100 kB\n", ramdisk.Memory{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mi, err := parseMemInfo(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			m, err := memoryFrom(mi, 0)
			if (err != nil) != tt.err || m != tt.want {
				t.Errorf("MemoryFrom = %+v, %v; want %+v, error %v", m, err, tt.want, tt.err)
			}
		})
	}
}

func TestParseMemInfoMalformed(t *testing.T) {
	for _, in := range []string{"MemTotal 100 kB", "MemTotal: lots kB", "MemTotal: 100 MB", "MemTotal: -5 kB", ": 5"} {
		if _, err := parseMemInfo(strings.NewReader(in)); err == nil {
			t.Errorf("ParseMemInfo(%q) succeeded", in)
		}
	}
}

// mmStatFixture is testdata/mm_stat-debian12.txt: 8 MiB of random data and
// 8 MiB of zeros on a 64 MiB lz4 zram disk with ext4.
var mmStatFixture = mmStat{OrigDataSize: 16887808, ComprDataSize: 8391067, MemUsedTotal: 8503296,
	MemUsedMax: 8540160, SamePages: 2055, HugePages: 2048}

func TestParseMMStat(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "mm_stat-debian12.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want mmStat
		err  bool
	}{
		{string(b), mmStatFixture, false},
		{"4096 74 12288 0 12288 0 0\n", mmStat{OrigDataSize: 4096, ComprDataSize: 74, MemUsedTotal: 12288, MemUsedMax: 12288}, false},
		{"1 2 3\n", mmStat{}, true},
		{"1 2 3 4 5 6 x 8\n", mmStat{}, true},
	}
	for _, tt := range tests {
		got, err := parseMMStat(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseMMStat(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}
