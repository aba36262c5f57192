package tray

import (
	"time"

	"rambar/i18n"
	"rambar/ramdisk"
)

// The words the menu says that the CLI says too, in the user's language.

// MemoryLine is ramdisk.MemoryLine in p's language, for the menu and the
// CLI's list: "RAM disks hold 4.1 GiB of 16.0 GiB memory; 8.2 GiB free,
// 1.2 GiB of swap in use" (memErr: memory could not be read).
func MemoryLine(p *i18n.Printer, heldSize ramdisk.Size, m ramdisk.Memory, memErr error) string {
	held := p.Size(heldSize)
	if memErr != nil {
		return p.T("RAM disks hold %s; memory unknown", held)
	}
	phys, free, comp, swap := p.Size(m.Physical), p.Size(m.Free), p.Size(m.Compressed), p.Size(m.SwapUsed)
	switch {
	case m.Compressed > 0 && m.Swapping():
		return p.T("RAM disks hold %s of %s memory; %s free, %s compressed, %s of swap in use", held, phys, free, comp, swap)
	case m.Compressed > 0 && m.NoSwap():
		return p.T("RAM disks hold %s of %s memory; %s free, %s compressed", held, phys, free, comp)
	case m.Compressed > 0:
		return p.T("RAM disks hold %s of %s memory; %s free, %s compressed, no swap in use", held, phys, free, comp)
	case m.Swapping():
		return p.T("RAM disks hold %s of %s memory; %s free, %s of swap in use", held, phys, free, swap)
	case m.NoSwap():
		return p.T("RAM disks hold %s of %s memory; %s free", held, phys, free)
	}
	return p.T("RAM disks hold %s of %s memory; %s free, no swap in use", held, phys, free)
}

// GrowLine is ramdisk.GrowLine in p's language, a sentence for the menu
// and the CLI's list: "If every RAM disk fills up they hold 8 GiB, 50% of
// memory".
func GrowLine(p *i18n.Printer, growTo ramdisk.Size, m ramdisk.Memory) string {
	g := p.Size(growTo)
	if m.Physical <= 0 {
		return p.T("If every RAM disk fills up they hold %s", g)
	}
	pct := 100 * float64(growTo) / float64(m.Physical)
	switch {
	case growTo > m.Physical:
		return p.T("If every RAM disk fills up they hold %s, %.0f%% of memory: more than the machine has", g, pct)
	case growTo > m.Physical-ramdisk.Headroom:
		return p.T("If every RAM disk fills up they hold %s, %.0f%% of memory: less than %s would be left for the system", g, pct, p.Number(ramdisk.Headroom.String()))
	case pct < 1:
		return p.T("If every RAM disk fills up they hold %s, under 1%% of memory", g)
	}
	return p.T("If every RAM disk fills up they hold %s, %.0f%% of memory", g, pct)
}

// Ago is ramdisk.Ago in p's language: "just now", "3 s ago",
// "5 min ago", "2 h ago", "3 days ago".
func Ago(p *i18n.Printer, d time.Duration) string {
	switch {
	case d < time.Second:
		return p.T("just now")
	case d < time.Minute:
		return p.T("%d s ago", int(d/time.Second))
	case d < time.Hour:
		return p.T("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return p.T("%d h ago", int(d/time.Hour))
	}
	return p.T("%d days ago", int(d/(24*time.Hour)))
}
