package tray

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"rambar/i18n"
	"rambar/ramdisk"
)

func progressText(p *i18n.Printer, d diskState) string {
	if d.Progress.BytesTotal > 0 {
		return p.T("%s %d%%", d.Op.verb(p), d.Progress.Percent())
	}
	return d.Op.verb(p)
}

// diskLine is a disk's row, read at a glance: its name, what its files
// use of its size, the memory it holds, and whether it has unsaved changes:
// "Build — 300 MiB of 4 GiB, 2.0 GiB in memory". How the disk takes memory
// is said once, in its submenu (allocationLine).
func diskLine(p *i18n.Printer, d diskState) string {
	name := d.Volume.Name
	if d.Unsaved {
		name = "• " + name
	}
	switch {
	case d.Incomplete && d.Whose.Text != "":
		name = p.T("%s (restore incomplete, not made here)", name)
	case d.Incomplete:
		name = p.T("%s (restore incomplete)", name)
	case d.Whose.Text != "":
		name = p.T("%s (not made here)", name)
	}
	size := p.Number(d.Volume.Size.String())
	unsaved := d.Unsaved && d.Op == opNone
	switch {
	case d.Op != opNone:
		return p.T("%s — %s", name, progressText(p, d))
	case d.UsageErr != nil && unsaved:
		return p.T("%s — %s, usage unknown, unsaved", name, size)
	case d.UsageErr != nil:
		return p.T("%s — %s, usage unknown", name, size)
	case !d.Measured && unsaved:
		return p.T("%s — %s, unsaved", name, size)
	case !d.Measured:
		return p.T("%s — %s", name, size)
	case !d.Usage.HeldKnown && unsaved:
		return p.T("%s — %s of %s, unsaved", name, p.Size(d.Usage.Used), size)
	case !d.Usage.HeldKnown:
		return p.T("%s — %s of %s", name, p.Size(d.Usage.Used), size)
	case unsaved:
		return p.T("%s — %s of %s, %s in memory, unsaved", name, p.Size(d.Usage.Used), size, p.Size(d.Usage.Held))
	}
	return p.T("%s — %s of %s, %s in memory", name, p.Size(d.Usage.Used), size, p.Size(d.Usage.Held))
}

// allocationLine explains, once per disk, how it takes memory and what
// gives it back.
func allocationLine(p *i18n.Printer, v ramdisk.Volume) string {
	switch {
	case v.Allocation == ramdisk.AllocUpfront:
		return p.T("In memory: all %s from the start, until ejected", p.Number(v.Size.String()))
	case v.FS.IsDiskImage():
		return p.T("In memory: grows as files are written; deleting files gives none back")
	case v.FS == ramdisk.ZRAM:
		return p.T("In memory: compressed, grows as files are written; Eject gives it back")
	case v.Allocation == ramdisk.AllocOnWrite:
		return p.T("In memory: grows as files are written, shrinks as they are deleted")
	}
	return p.T("In memory: how it takes memory is unknown")
}

// diskItem is a disk's row and its submenu: what it is, what is known of
// it (diskNotes), what can be done with it (diskActions) and its eject.
func diskItem(s menuState, d diskState) Item {
	name := d.Volume.Name
	key := "disk/" + name
	act := func(k actionKind) action { return action{Kind: k, Disk: name} }
	p := s.P
	info := p.T("%s %s at %s", p.Number(d.Volume.Size.String()), d.Volume.FS.Label(), d.Volume.MountPoint)
	sub := []Item{
		{Key: key + "/info", Title: info, Disabled: true},
		{Key: key + "/alloc", Title: allocationLine(p, d.Volume), Disabled: true},
	}
	sub = append(sub, diskNotes(s, d, key)...)
	sub = append(sub,
		Item{Key: key + "/sep1", Separator: true},
		Item{Key: key + "/open", Title: p.T("Open"), action: act(actOpen)},
		Item{Key: key + "/copy", Title: p.T("Copy Path"), action: act(actCopyPath)},
	)
	if s.Features.EditPresets {
		sub = append(sub, Item{Key: key + "/preset", Title: p.T("Save as Preset…"), action: act(actSaveAsPreset)})
	}
	if it, ok := cacheItem(s, d); ok {
		sub = append(sub, it)
	}
	extra := diskActions(s, d, key, act)
	if len(extra) > 0 {
		sub = append(sub, Item{Key: key + "/sep2", Separator: true})
		sub = append(sub, extra...)
	}
	sub = append(sub, Item{Key: key + "/sep3", Separator: true})
	sub = append(sub, ejectItems(p, key, d, act)...)
	return Item{Key: key, Title: diskLine(p, d), Tooltip: d.Volume.MountPoint, Children: sub}
}

// ejectItems are a disk's Eject (Eject Without Saving when its restore is
// incomplete) and, after a refused eject, who holds it and Force Eject.
func ejectItems(p *i18n.Printer, key string, d diskState, act func(actionKind) action) []Item {
	idle := d.Op == opNone
	var sub []Item
	ejectTitle := p.T("Eject")
	if d.Op == opEjecting {
		ejectTitle = p.T("Ejecting…")
	}
	switch {
	case d.Whose.Text != "":
		// Eject would be refused (this RAMBar cannot save it): say what it does.
		sub = append(sub, Item{Key: key + "/eject", Title: p.T("Eject Without Saving (another RAMBar's disk)"), Disabled: !idle,
			Tooltip: p.T("%s %s; eject it there to save it first", d.Volume.Name, Say(p, d.Whose)), action: act(actForceEject)})
	case d.Incomplete:
		// Eject would be refused (it would save the partial disk): drop it instead.
		sub = append(sub, Item{Key: key + "/eject", Title: p.T("Eject Without Saving (the saved copy is kept)"), Disabled: !idle,
			Tooltip: p.T("Its restore did not finish; mount it again to restore the whole saved state"), action: act(actForceEject)})
	default:
		sub = append(sub, Item{Key: key + "/eject", Title: ejectTitle, Disabled: !idle, action: act(actEject)})
	}
	if d.Busy != nil {
		sub = append(sub, Item{Key: key + "/busy", Title: busyLine(p, d.Busy), Tooltip: d.Busy.Error(), Disabled: true},
			Item{Key: key + "/force", Title: p.T("Force Eject"), Tooltip: p.T("Unmount even though files are open; programs using it may lose data"),
				Disabled: !idle, action: act(actForceEject)})
	}
	return sub
}

// reclaimable reports whether remaking the disk would give memory back: a
// disk that commits its whole size up front holds it again once remade.
func reclaimable(d diskState) bool {
	return d.Measured && d.UsageErr == nil && d.Volume.Allocation != ramdisk.AllocUpfront && d.Usage.ReclaimWorthwhile()
}

// busyLine names the processes holding a disk: "In use by vim (pid 41), less (pid 7)".
func busyLine(p *i18n.Printer, b *ramdisk.BusyError) string {
	if len(b.Holders) == 0 {
		return p.T("In use by another program")
	}
	names := make([]string, 0, len(b.Holders))
	for i, h := range b.Holders {
		if i == 3 {
			return p.T("In use by %s and %d more", strings.Join(names, ", "), len(b.Holders)-3)
		}
		names = append(names, h.String())
	}
	return p.T("In use by %s", strings.Join(names, ", "))
}

// sizeFits reports whether a disk of size z may be made without forcing.
func sizeFits(s menuState, z ramdisk.Size) bool {
	phys := s.Memory.Physical
	if s.MemoryErr != nil || phys <= 0 {
		return true
	}
	return s.Held()+z <= phys-ramdisk.Headroom
}

func newDiskItem(s menuState) Item {
	var sub []Item
	p := s.P
	for _, z := range readySizes {
		t := p.Number(z.String())
		fs := defaultFS(s.Caps)
		switch {
		case !sizeFits(s, z):
			t = p.T("%s (not enough memory)", t)
		case (s.Caps.LazyThreshold > 0 || fs.IsDiskImage()) && ramdisk.AllocationFor(fs, z) == ramdisk.AllocUpfront:
			t = p.T("%s, committed now", t)
		case s.Caps.LazyThreshold > 0 || fs.IsDiskImage():
			t = p.T("%s, grows as written", t)
		}
		sub = append(sub, Item{Key: "new/" + z.String(), Title: t, Disabled: !sizeFits(s, z),
			action: action{Kind: actNewSize, Size: z}})
	}
	sub = append(sub, Item{Key: "new/sep", Separator: true},
		Item{Key: "new/custom", Title: p.T("Custom…"), action: action{Kind: actNewCustom}})
	return Item{Key: "new", Title: p.T("New RAM Disk"), Children: sub}
}

func defaultFS(c ramdisk.Caps) ramdisk.FileSystem {
	if len(c.FileSystems) > 0 {
		return c.FileSystems[0]
	}
	return ""
}

func presetsItem(s menuState) (Item, bool) {
	if len(s.Settings.Presets) == 0 && !s.Features.EditPresets {
		return Item{}, false
	}
	var sub []Item
	for _, p := range s.Settings.Presets {
		_, mounted := s.Disk(p.Name)
		t := s.P.T("%s (%s)", p.Name, s.P.Number(p.Size))
		if mounted {
			t = s.P.T("%s (%s), mounted", p.Name, s.P.Number(p.Size))
		}
		sub = append(sub, Item{Key: "preset/" + p.Name, Title: t, Disabled: mounted,
			action: action{Kind: actMountPreset, Preset: p.Name}})
	}
	if len(sub) == 0 {
		sub = append(sub, Item{Key: "preset/none", Title: s.P.T("No Presets"), Disabled: true})
	}
	if s.Features.EditPresets {
		sub = append(sub, Item{Key: "preset/sep", Separator: true},
			Item{Key: "preset/edit", Title: s.P.T("Edit Presets…"), action: action{Kind: actEditPresets}})
	}
	return Item{Key: "presets", Title: s.P.T("Presets"), Children: sub}, true
}

func memoryItems(s menuState) []Item {
	// Information, not a disabled command: shown in full colour, and a click
	// says what the figures mean.
	items := []Item{{Key: "memory", Title: MemoryLine(s.P, s.Held(), s.Memory, s.MemoryErr), Tooltip: s.P.T(memoryHelp),
		action: action{Kind: actExplain, Text: s.P.T(memoryHelp)}}}
	if len(s.Disks) > 0 && s.MemoryErr == nil {
		// What the memory check counts: every disk filled up.
		vols := make([]ramdisk.Volume, len(s.Disks))
		for i, d := range s.Disks {
			vols[i] = d.Volume
		}
		items = append(items, Item{Key: "memory/grow", Title: GrowLine(s.P, ramdisk.GrowTo(vols, s.Held()), s.Memory), Tooltip: s.P.T(growHelp),
			action: action{Kind: actExplain, Text: s.P.T(growHelp)}})
	}
	items = append(items, warnings(s)...)
	return items
}

// memoryHelp and growHelp are what a click on the memory lines says.
const (
	memoryHelp = "The memory RAM disks hold now, of this machine's physical memory. Each disk's submenu says how it takes memory and what gives it back."
	growHelp   = "A disk that grows as files are written can still reach its full size. New disks are planned against every disk filled up."
)

// warnings are the entries that need the user's eye; the icon changes when
// there are any.
func warnings(s menuState) []Item {
	var out []Item
	if s.MemoryErr == nil && s.Memory.Swapping() {
		text := s.P.T("This machine has %s in swap. A RAM disk competes with programs for memory; "+
			"filling one now pushes more to swap, which is slower than any disk. Eject disks you do not need.", s.P.Size(s.Memory.SwapUsed))
		out = append(out, Item{Key: "warn/swap", Title: s.P.T("⚠ Swapping: RAM disks add to memory pressure"),
			Tooltip: text, action: action{Kind: actExplain, Text: text}})
	}
	for i, said := range s.Notices {
		n := Say(s.P, said)
		title := n
		if i := strings.IndexAny(title, ":："); i > 0 {
			title = title[:i]
		}
		out = append(out, Item{Key: fmt.Sprintf("warn/notice/%d", i), Title: "⚠ " + title, Tooltip: n, action: action{Kind: actExplain, Text: n}})
	}
	for _, d := range s.Disks {
		if d.Measured && d.UsageErr == nil && d.Usage.NearlyFull() {
			text := s.P.T("%s is %.0f%% full (%s free). Writes will fail when it is full.",
				d.Volume.Name, 100*d.Usage.Fill(), s.P.Size(d.Usage.Free))
			out = append(out, Item{Key: "warn/full/" + d.Volume.Name,
				Title:  s.P.T("⚠ %s is %.0f%% full", d.Volume.Name, 100*d.Usage.Fill()),
				action: action{Kind: actExplain, Text: text}})
		}
	}
	return out
}

func tooltip(s menuState) string {
	if len(s.Disks) == 0 {
		return s.P.T("RAMBar: no RAM disks")
	}
	return s.P.T("RAMBar: %d RAM disks, %s held", len(s.Disks), s.P.Size(s.Held()))
}

// short is an error's first clause in p's language, for a menu line or a
// notification.
func short(p *i18n.Printer, err error) string {
	msg := p.Err(err)
	if i := strings.IndexAny(msg, "\n;；"); i > 0 {
		msg = msg[:i]
	}
	if len(msg) > 80 {
		cut := 77
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut-- // not inside a letter of a translation
		}
		msg = msg[:cut] + "…"
	}
	return msg
}

// Walk calls fn for every item of the menu, depth first.
func (m Menu) Walk(fn func(Item)) {
	var walk func([]Item)
	walk = func(items []Item) {
		for _, it := range items {
			fn(it)
			walk(it.Children)
		}
	}
	walk(m.Items)
}

// Find returns the item with that key.
func (m Menu) Find(key string) (Item, bool) {
	var found Item
	ok := false
	m.Walk(func(it Item) {
		if !ok && it.Key == key {
			found, ok = it, true
		}
	})
	return found, ok
}

// firstFreeName returns "RAMDisk", or "RAMDisk-2", "RAMDisk-3"… the first
// not in taken (compared case-insensitively, as macOS volume names are).
func firstFreeName(base string, taken []string) string {
	used := map[string]bool{}
	for _, t := range taken {
		used[strings.ToLower(t)] = true
	}
	if !used[strings.ToLower(base)] {
		return base
	}
	for i := 2; ; i++ {
		n := fmt.Sprintf("%s-%d", base, i)
		if !used[strings.ToLower(n)] {
			return n
		}
	}
}

// savedItem is a kept disk's "Saved 3 s ago" line, with what its change
// feed counts as changed since ("• 12 paths unsaved"); false when the
// disk was never saved or is not kept. now is the menu's clock.
func savedItem(p *i18n.Printer, d diskState, key string, now time.Time) (Item, bool) {
	if !d.Kept || d.Saved.IsZero() || d.Op != opNone {
		return Item{}, false
	}
	ago := Ago(p, now.Sub(d.Saved))
	title := p.T("Saved %s", ago)
	switch {
	case d.Changed > 0:
		title = p.T("• Saved %[1]s, %[2]d paths changed since", ago, d.Changed)
	case d.Changed == 0:
		title = p.T("Saved %s, nothing changed since", ago)
	case d.Unsaved:
		title = p.T("• Saved %s, changed since", ago)
	}
	return Item{Key: key + "/saved", Title: title, Disabled: true,
		Tooltip: p.T("Save Now, autosave or a continuous save keeps the changes")}, true
}
