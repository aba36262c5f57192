package ramdisk

import (
	"fmt"

	"rambar/i18n"
)

// GrowTo is the memory mounted RAM disks could come to hold: each can fill
// up to its size (one that takes memory as written can still reach it), or
// what they hold already when that is more (a disk image's helper holds a
// little beyond its size). The memory check plans against it, and `list`
// shows it.
func GrowTo(mounted []Volume, held Size) Size {
	var sum Size
	for _, v := range mounted {
		sum += v.Size
	}
	return max(sum, held)
}

// GrowTo is the memory the disks mounted now could come to hold.
func (f Facts) GrowTo() Size { return GrowTo(f.Mounted, f.Held) }

// GrowLine says what the disks could grow to against physical memory:
// "if every RAM disk fills up they hold 12.0 GiB, 75% of memory".
func GrowLine(growTo Size, m Memory) string {
	s := fmt.Sprintf("if every RAM disk fills up they hold %s", growTo.Short())
	if m.Physical <= 0 {
		return s
	}
	if pct := 100 * float64(growTo) / float64(m.Physical); pct < 1 {
		s += ", under 1% of memory"
	} else {
		s += fmt.Sprintf(", %.0f%% of memory", pct)
	}
	switch {
	case growTo > m.Physical:
		s += ": more than the machine has, so filling them " + m.Overflow()
	case growTo > m.Physical-Headroom:
		s += fmt.Sprintf(": less than %s would be left for the system", Headroom)
	}
	return s
}

// memoryCheck refuses (unless forced) a disk that would let RAM disks grow
// past physical memory minus Headroom, and says so in a forced plan.
func (p *Plan) memoryCheck(r Request, f Facts) error {
	phys := f.Memory.Physical
	if phys <= 0 {
		return nil
	}
	now := f.GrowTo()
	worst := now + p.Size
	if worst <= phys-Headroom {
		return nil
	}
	if !r.Force {
		return i18n.Errorf("%w: %v; use --force to make it anyway", ErrTooLarge, growth(p.Size, worst, now, phys))
	}
	p.forcedNote(now, worst, f.Memory)
	return nil
}

// forcedNote is a forced plan's warning: the memory check's words (as its
// refusal says them), and what filling the disks would do.
func (p *Plan) forcedNote(now, worst Size, m Memory) {
	size, to, have, phys := p.Size, worst.Short(), now.Short(), m.Physical.Short()
	past, swap := worst > m.Physical, !m.NoSwap()
	switch {
	case now > 0 && past && swap:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory (the disks mounted now can fill up to %s), "+
			"more than physical memory (%s); filling them pushes memory to swap", size, to, have, phys)
	case now > 0 && past:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory (the disks mounted now can fill up to %s), "+
			"more than physical memory (%s); filling them leaves the system out of memory: its out-of-memory killer ends programs", size, to, have, phys)
	case now > 0 && swap:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory (the disks mounted now can fill up to %s), "+
			"more than physical memory (%s) minus %s for the system; filling them pushes memory to swap", size, to, have, phys, Headroom)
	case now > 0:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory (the disks mounted now can fill up to %s), "+
			"more than physical memory (%s) minus %s for the system; filling them leaves the system out of memory: "+
			"its out-of-memory killer ends programs", size, to, have, phys, Headroom)
	case past && swap:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory, "+
			"more than physical memory (%s); filling them pushes memory to swap", size, to, phys)
	case past:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory, "+
			"more than physical memory (%s); filling them leaves the system out of memory: its out-of-memory killer ends programs", size, to, phys)
	case swap:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory, "+
			"more than physical memory (%s) minus %s for the system; filling them pushes memory to swap", size, to, phys, Headroom)
	default:
		p.note(Warning, "forced: %s would let RAM disks grow to %s of memory, "+
			"more than physical memory (%s) minus %s for the system; filling them leaves the system out of memory: "+
			"its out-of-memory killer ends programs", size, to, phys, Headroom)
	}
}

// growth says how far a disk of size z would let RAM disks grow (worst),
// those mounted now being able to fill now, against physical memory: one
// sentence, translatable.
func growth(z, worst, now, phys Size) error {
	switch {
	case now > 0 && worst > phys:
		return i18n.Errorf("%s would let RAM disks grow to %s of memory (the disks mounted now can fill up to %s), more than physical memory (%s)",
			z, worst.Short(), now.Short(), phys.Short())
	case now > 0:
		return i18n.Errorf("%s would let RAM disks grow to %s of memory (the disks mounted now can fill up to %s), more than physical memory (%s) minus %s for the system",
			z, worst.Short(), now.Short(), phys.Short(), Headroom)
	case worst > phys:
		return i18n.Errorf("%s would let RAM disks grow to %s of memory, more than physical memory (%s)", z, worst.Short(), phys.Short())
	}
	return i18n.Errorf("%s would let RAM disks grow to %s of memory, more than physical memory (%s) minus %s for the system",
		z, worst.Short(), phys.Short(), Headroom)
}
