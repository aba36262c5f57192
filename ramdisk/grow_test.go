package ramdisk

import (
	"errors"
	"fmt"
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
		{size: 4 * GiB, wantErr: ErrTooLarge, says: "would let RAM disks grow to 24 GiB of memory (the disks mounted now can fill up to 20 GiB), more than physical memory (23.5 GiB)"},
		{size: 2 * GiB, wantErr: ErrTooLarge, says: "minus 2 GiB for the system"}, // 22 GiB: within physical, past the headroom
		{size: 15*GiB + 600*MiB, force: true, says: "forced: 15.6 GiB would let RAM disks grow to 35.6 GiB of memory (the disks mounted now can fill up to 20 GiB), more than physical memory (23.5 GiB); filling them leaves the system out of memory: its out-of-memory killer ends programs"},
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

// TestGrowLine: what the disks could grow to, and what filling memory does:
// swap where there is some, the out-of-memory killer where there is none.
func TestGrowLine(t *testing.T) {
	swap := Memory{Physical: 16 * GiB, SwapTotal: 2 * GiB}
	none := Memory{Physical: 16 * GiB}
	for _, c := range []struct {
		grow Size
		m    Memory
		want string
	}{
		{8 * GiB, swap, "if every RAM disk fills up they hold 8 GiB, 50% of memory"},
		{96 * MiB, swap, "they hold 96 MiB, under 1% of memory"},
		{15 * GiB, swap, "they hold 15 GiB, 94% of memory: less than 2 GiB would be left for the system"},
		{20 * GiB, swap, "125% of memory: more than the machine has, so filling them pushes memory to swap"},
		{20 * GiB, none, "125% of memory: more than the machine has, so filling them leaves the system out of memory: its out-of-memory killer ends programs"},
	} {
		if got := GrowLine(c.grow, c.m); !strings.HasSuffix(got, c.want) {
			t.Errorf("GrowLine(%s) = %q, want …%q", c.grow, got, c.want)
		}
	}
	for _, m := range []Memory{none, {Physical: 16 * GiB, Free: 8 * GiB, SwapTotal: 2 * GiB}} {
		if got := MemoryLine(GiB, m); strings.Contains(got, "swap") != (m.SwapTotal > 0) {
			t.Errorf("MemoryLine with %s of swap: %q", m.SwapTotal, got)
		}
	}
	if got := GrowTo([]Volume{{Size: GiB}, {Size: 2 * GiB}}, 4*GiB); got != 4*GiB {
		t.Errorf("GrowTo with more held than sizes = %s", got)
	}
}

// TestForcedNoteIsTheRefusalsWords: in every case (disks mounted or not,
// past physical memory or past its headroom, swap or none) a forced plan's
// note is "forced: ", the refusal's words and what filling them does, as
// it always read, and it keeps its format for the user's language.
func TestForcedNoteIsTheRefusalsWords(t *testing.T) {
	phys := 16 * GiB
	for _, mounted := range [][]Volume{nil, {{Name: "A", Size: 4 * GiB}}} {
		for _, worst := range []Size{15 * GiB, 20 * GiB} { // past the headroom only; past physical memory
			for _, m := range []Memory{{Physical: phys, SwapTotal: GiB}, {Physical: phys}} {
				f := Facts{Caps: linuxCaps(), Memory: m, Mounted: mounted}
				size := worst - f.GrowTo()
				_, refused := NewPlan(Request{Name: "New", Size: size}, f)
				p, err := NewPlan(Request{Name: "New", Size: size, Force: true}, f)
				if !errors.Is(refused, ErrTooLarge) || err != nil {
					t.Fatalf("%s: refused %v, forced %v", size, refused, err)
				}
				msg := strings.TrimSuffix(strings.TrimPrefix(refused.Error(), ErrTooLarge.Error()+": "), "; use --force to make it anyway")
				want := "forced: " + msg + "; filling them " + m.Overflow()
				n := p.Notes[len(p.Notes)-1]
				if n.Text != want || n.Severity != Warning || n.Format == "" || fmt.Sprintf(n.Format, n.Args...) != want {
					t.Errorf("forced note %+v, want %q", n, want)
				}
			}
		}
	}
}
