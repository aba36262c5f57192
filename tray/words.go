package tray

import (
	"strings"
	"time"

	"golang.org/x/text/language"

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

// Say is a domain package's sentence (a disk's note, what is known of a
// disk's maker) in p's language: in English, and for one made without a
// format (an error's English detail), its English text as the CLI says
// it; else its format through the catalog, with its arguments that are
// sentences said first.
func Say(p *i18n.Printer, s ramdisk.Said) string {
	if s.Format == "" || english(p) {
		return s.Text
	}
	return p.T(s.Format, sayArgs(p, s.Args)...)
}

// sayArgs are args with those that are sentences said in p's language.
func sayArgs(p *i18n.Printer, args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		if s, ok := a.(ramdisk.Said); ok {
			a = Say(p, s)
		}
		out[i] = a
	}
	return out
}

// PlanSummary is a plan's first line (ramdisk.Plan.Summary) in p's
// language, as the CLI says it: "Scratch: 4 GiB APFS, grows as written".
func PlanSummary(p *i18n.Printer, plan ramdisk.Plan) string {
	if english(p) {
		return plan.Summary()
	}
	size, fs := p.Number(plan.Size.String()), plan.FS.Label()
	switch plan.Allocation {
	case ramdisk.AllocUpfront:
		return p.T("%s: %s %s, commits %s now", plan.Name, size, fs, p.Size(plan.CommitNow))
	case ramdisk.AllocOnWrite:
		return p.T("%s: %s %s, %s", plan.Name, size, fs, p.T("grows as written"))
	}
	return p.T("%s: %s %s, %s", plan.Name, size, fs, p.T("allocation unknown"))
}

// NoteText is a plan's note in p's language, as the CLI and the New RAM
// Disk window say it: "Tip: …" for advice, "Warning: …" for a warning
// (ramdisk.Note.String in English, and for a note made without a format).
func NoteText(p *i18n.Printer, n ramdisk.Note) string {
	if n.Format == "" || english(p) {
		return n.String()
	}
	text := NoteBody(p, n)
	switch n.Severity {
	case ramdisk.Advice:
		return p.T("Tip: %s", text)
	case ramdisk.Warning:
		return p.T("Warning: %s", text)
	}
	return text
}

// NoteBody is a plan's note in p's language without its "Tip: " or
// "Warning: " (its Text in English, and for a note made without a
// format).
func NoteBody(p *i18n.Printer, n ramdisk.Note) string {
	if n.Format == "" || english(p) {
		return n.Text
	}
	return p.T(n.Format, sayArgs(p, n.Args)...)
}

// english reports whether p speaks English (nil does).
func english(p *i18n.Printer) bool { return p == nil || p.Tag == language.English }

// ListSep is what goes between the items of a list in p's language: ", ",
// or "、" in Japanese and Chinese.
func ListSep(p *i18n.Printer) string {
	if p != nil {
		if base, _ := p.Tag.Base(); base.String() == "ja" || base.String() == "zh" {
			return "、"
		}
	}
	return ", "
}

// PresetContents is how a preset keeps its contents (ramdisk.ContentsPhrase)
// in p's language, for the CLI's preset list and the menu's presets:
// "kept, saved every 5 min, 3 snapshots".
func PresetContents(p *i18n.Printer, preset ramdisk.Preset) string {
	if english(p) {
		return ramdisk.ContentsPhrase(preset)
	}
	var items []string
	switch {
	case preset.Contents == ramdisk.Keep:
		items = append(items, p.T("kept"))
	case preset.Contents == ramdisk.Mirror && preset.InPlace:
		items = append(items, p.T("mirrors %s in place", preset.MirrorPath))
	case preset.Contents == ramdisk.Mirror:
		items = append(items, p.T("mirrors %s", preset.MirrorPath))
	default:
		return p.T("discarded")
	}
	switch {
	case preset.SaveAuto:
		items = append(items, p.T("saved continuously"))
	case preset.SaveEvery > 0:
		items = append(items, p.T("saved every %s", p.Number(ramdisk.ShortDuration(preset.SaveInterval()))))
	}
	if preset.Snapshots > 0 {
		items = append(items, p.T("%d snapshots", preset.Snapshots))
	}
	return strings.Join(items, ListSep(p))
}
