package ramdisk

import (
	"errors"
	"strings"
	"testing"
)

// TestMemoryCheckCountsGrowth: the check plans against what mounted disks
// could grow to. The machine: 23.5 GiB, no swap, tmpfs disks of
// 35.6 GiB in all that held almost nothing were accepted one by one.
func TestMemoryCheckCountsGrowth(t *testing.T) {
	phys := 23*GiB + 512*MiB
	mounted := []Volume{{Name: "A", Size: 16 * GiB}, {Name: "B", Size: 4 * GiB}}
	f := Facts{Caps: linuxCaps(), Memory: Memory{Physical: phys, Free: 20 * GiB}, Mounted: mounted, Held: 10 * MiB}
	for _, c := range []struct {
		size    Size
		force   bool
		wantErr error
		says    string
	}{
		{size: GiB}, // 21 GiB of 23.5: fine
		{size: 4 * GiB, wantErr: ErrTooLarge, says: "would let RAM disks grow to 24.0 GiB of memory (the disks mounted now can fill up to 20.0 GiB), more than physical memory (23.5 GiB)"},
		{size: 2 * GiB, wantErr: ErrTooLarge, says: "minus 2 GiB for the system"}, // 22 GiB: within physical, past the headroom
		{size: 15*GiB + 600*MiB, force: true, says: "forced: 15.59 GiB would let RAM disks grow to 35.6 GiB"},
	} {
		p, err := NewPlan(Request{Name: "New", Size: c.size, Force: c.force}, f)
		switch {
		case c.wantErr != nil && !errors.Is(err, c.wantErr):
			t.Errorf("%s: %v, want %v", c.size, err, c.wantErr)
		case c.wantErr == nil && err != nil:
			t.Errorf("%s: %v", c.size, err)
		case c.says != "" && c.wantErr != nil && !strings.Contains(err.Error(), c.says):
			t.Errorf("%s: %q lacks %q", c.size, err, c.says)
		case c.says != "" && c.wantErr == nil && !strings.Contains(notesText(p), c.says):
			t.Errorf("%s: notes %q lack %q", c.size, notesText(p), c.says)
		}
	}
}

func notesText(p Plan) string {
	var s []string
	for _, n := range p.Notes {
		s = append(s, n.Text)
	}
	return strings.Join(s, "\n")
}

func TestGrowLine(t *testing.T) {
	m := Memory{Physical: 16 * GiB}
	for _, c := range []struct {
		grow Size
		want string
	}{
		{8 * GiB, "if every RAM disk fills up they hold 8.0 GiB, 50% of memory"},
		{96 * MiB, "they hold 96 MiB, under 1% of memory"},
		{15 * GiB, "they hold 15.0 GiB, 94% of memory: less than 2 GiB would be left for the system"},
		{20 * GiB, "125% of memory: more than the machine has, so filling them pushes memory to swap"},
	} {
		if got := GrowLine(c.grow, m); !strings.HasSuffix(got, c.want) {
			t.Errorf("GrowLine(%s) = %q, want …%q", c.grow, got, c.want)
		}
	}
	if got := GrowTo([]Volume{{Size: GiB}, {Size: 2 * GiB}}, 4*GiB); got != 4*GiB {
		t.Errorf("GrowTo with more held than sizes = %s", got)
	}
}
