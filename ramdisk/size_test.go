package ramdisk

import (
	"errors"
	"strings"
	"testing"
)

func TestParseSize(t *testing.T) {
	phys := 16 * GiB
	tests := []struct {
		in   string
		want Size
	}{
		{"512M", 512 * MiB},
		{"512m", 512 * MiB},
		{"4G", 4 * GiB},
		{"4GiB", 4 * GiB},
		{"4gb", 4 * GiB}, // GB means GiB: binary units always
		{"4 GiB", 4 * GiB},
		{"1.5G", 1536 * MiB},
		{"4096MiB", 4 * GiB},
		{"4095MiB", 4095 * MiB},
		{"2048", 2 * GiB}, // bare number is MiB
		{"25%", 4 * GiB},
		{"12.5%", 2 * GiB},
		{"100%", 16 * GiB},
		{"1T", TiB},
		{"1048576K", GiB},
		{"1K", MinSize},      // rounded up to the minimum
		{"1.0001M", 2 * MiB}, // rounded up to whole MiB
		{" 8G ", 8 * GiB},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in, phys)
			if err != nil {
				t.Fatalf("ParseSize(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseSize(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseSizeRefuses(t *testing.T) {
	tests := []struct {
		in, phys string
		says     string
	}{
		{"0", "", "more than zero"},
		{"0G", "", "more than zero"},
		{"-1G", "", "positive"},
		{"-0", "", "positive"},
		{"3.5Q", "", `unknown unit "Q"`},
		{"4XB", "", "unknown unit"},
		{"", "", "empty"},
		{"G", "", "no number"},
		{"abc", "", "unknown unit"},
		{"1e9", "", "unknown unit"},
		{"1.2.3G", "", "use a number"},
		{"NaN", "", "unknown unit"},
		{"65T", "", "larger than any machine"},
		{"999999999999999999999G", "", "larger than any machine"},
		{"0%", "", "above 0"},
		{"101%", "", "at most 100"},
		{"-5%", "", "positive"},
		{"x%", "", "use a number"},
		{"25%", "unknown", "physical memory is unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			phys := 16 * GiB
			if tt.phys == "unknown" {
				phys = 0
			}
			got, err := ParseSize(tt.in, phys)
			if err == nil {
				t.Fatalf("ParseSize(%q) = %v, want an error", tt.in, got)
			}
			if !errors.Is(err, ErrSize) {
				t.Errorf("error %v does not wrap ErrSize", err)
			}
			if !strings.Contains(err.Error(), tt.says) {
				t.Errorf("error %q does not say %q", err, tt.says)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestSizeFormsAndSectors(t *testing.T) {
	tests := []struct {
		z       Size
		str     string
		short   string
		sectors int64
	}{
		{4 * GiB, "4 GiB", "4 GiB", 8388608}, // the seed's ram://8388608
		{1536 * MiB, "1.5 GiB", "1.5 GiB", 3145728},
		{512 * MiB, "512 MiB", "512 MiB", 1048576},
		{4095 * MiB, "4095 MiB", "4.0 GiB", 4095 * 2048},
		{3 * KiB, "3 KiB", "3 KiB", 6},
		{12, "12 B", "12 B", 1},
		{TiB, "1 TiB", "1 TiB", 2147483648},
		{6027 * MiB, "5.9 GiB", "5.9 GiB", 6027 * 2048},
		{4100 * MiB, "4100 MiB", "4.0 GiB", 4100 * 2048},
		{-2 * GiB, "-2 GiB", "-2 GiB", 0},
	}
	for _, tt := range tests {
		if got := tt.z.String(); got != tt.str {
			t.Errorf("%d.String() = %q, want %q", int64(tt.z), got, tt.str)
		}
		if got := tt.z.Short(); got != tt.short {
			t.Errorf("%d.Short() = %q, want %q", int64(tt.z), got, tt.short)
		}
		if tt.z > 0 {
			if got := tt.z.Sectors(); got != tt.sectors {
				t.Errorf("%d.Sectors() = %d, want %d", int64(tt.z), got, tt.sectors)
			}
		}
	}
	if got := (4 * GiB).MiBs(); got != 4096 {
		t.Errorf("MiBs = %d", got)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"4G", "1.5G", "25%", "-1G", "3.5Q", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, err := ParseSize(s, 16*GiB)
		if err != nil {
			return
		}
		if z < MinSize || z > MaxSize || z%MiB != 0 {
			t.Fatalf("ParseSize(%q) = %d: out of range or not whole MiB", s, int64(z))
		}
	})
}

// TestRoundingSaid: a size that is not a whole number of MiB is rounded up,
// and the plan says so first, with why; whole sizes and percentages are
// said nothing of.
func TestRoundingSaid(t *testing.T) {
	f := Facts{Caps: linuxCaps(), Memory: Memory{Physical: 16 * GiB, Free: 8 * GiB}}
	for _, c := range []struct{ size, want string }{
		{"512k", "512k → 1 MiB: tmpfs sizes are whole MiB"},
		{"1000KiB", "1000KiB → 1 MiB: tmpfs sizes are whole MiB"},
		{"1.0001G", "1.0001G → 1025 MiB: tmpfs sizes are whole MiB"},
		{"4G", ""}, {"1.5G", ""}, {"25%", ""}, {"100", ""},
	} {
		p, err := PlanInput(Input{Name: "R", Size: c.size}, f)
		if err != nil {
			t.Fatalf("%s: %v", c.size, err)
		}
		first := ""
		if len(p.Notes) > 0 {
			first = p.Notes[0].Text
		}
		if rounded := strings.Contains(first, "→"); rounded != (c.want != "") || c.want != "" && first != c.want {
			t.Errorf("%s: first note %q, want %q", c.size, first, c.want)
		}
	}
}
