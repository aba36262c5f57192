package bench

import (
	"rambar/i18n"
	"rambar/ramdisk"
)

// homeDiskName is the name of the home folder's disk in tables.
const homeDiskName = "Home disk"

// ForVolume is the target for a mounted RAM disk.
func ForVolume(v ramdisk.Volume) Target {
	return Target{Name: v.Name, Dir: v.MountPoint, RAM: true}
}

// HomeDisk is the target for the disk the home folder is on (the benchmark
// works in a hidden subfolder of home and removes it).
func HomeDisk(home string) Target {
	return Target{Name: homeDiskName, Dir: home, RAM: IsMemoryFS(home)}
}

// DefaultTargets is what `rambar bench` measures with no arguments: the RAM
// disks RAMBar made (Managed) whose top folder uid owns, then the home
// folder's disk. Hand-made RAM disks and other users' are never written to
// unless named.
func DefaultTargets(vols []ramdisk.Volume, home string, uid int) []Target {
	var ts []Target
	for _, v := range vols {
		if v.Managed && ownedBy(v.MountPoint, uid) {
			ts = append(ts, ForVolume(v))
		}
	}
	if home != "" {
		ts = append(ts, HomeDisk(home))
	}
	return ts
}

// WithHomeDisk is what one named target is measured against: the home
// folder's disk is added, unless the target is on that disk already (or
// home is unknown). Other target lists are returned as they are. The CLI's
// `bench NAME` and the menu's "Benchmark This Disk" both use it.
func WithHomeDisk(ts []Target, home string) []Target {
	if len(ts) != 1 || home == "" || sameDevice(ts[0].Dir, home) {
		return ts
	}
	return append(ts, HomeDisk(home))
}

// Headline sums the report up in a sentence for a notification: which rows
// the first RAM disk won against the first ordinary disk (beyond the run-to-run
// noise), e.g. "Scratch vs Home disk: faster at 1 GiB read, uncached (9.7×),
// 4 KB write + fsync (569×); no measurable gain at untar 2,900 files (67 MiB)".
// Without both kinds of target it names the first target's rows measured.
func (r Report) Headline() string { return r.HeadlineIn(nil) }

// HeadlineIn is Headline in sp's language (nil: English, as Headline).
func (r Report) HeadlineIn(sp i18n.Speaker) string {
	t := tongue{sp}
	ram, disk := r.ramAndDisk()
	if ram == nil || disk == nil {
		if len(r.Targets) == 0 {
			return t.T("nothing measured")
		}
		n := 0
		for _, x := range r.Targets[0].Results {
			if x.OK() {
				n++
			}
		}
		return t.T("%s: %d rows measured (no RAM disk and ordinary disk to compare)", t.name(r.Targets[0].Name), n)
	}
	var faster, same, slower []string
	for _, row := range r.Rows {
		a, _ := ram.Result(row.ID)
		d, _ := disk.Result(row.ID)
		x, apart, ok := speedupOf(a, d)
		label := r.labelIn(t, row)
		switch {
		case !ok:
		case apart && x >= MinGain:
			faster = append(faster, t.T("%s (%s×)", label, speedupNum(t, x)))
		case apart && x <= 1/MinGain:
			slower = append(slower, t.T("%s (%s×)", label, speedupNum(t, 1/x)))
		default:
			same = append(same, label)
		}
	}
	parts := []string{}
	if len(faster) > 0 {
		parts = append(parts, t.T("faster at %s", list(t, faster)))
	}
	if len(same) > 0 {
		parts = append(parts, t.T("no measurable gain at %s", list(t, same)))
	}
	if len(slower) > 0 {
		parts = append(parts, t.T("slower at %s", list(t, slower)))
	}
	if len(parts) == 0 {
		return t.T("%s vs %s: nothing could be compared", t.name(ram.Name), t.name(disk.Name))
	}
	return t.T("%s vs %s: %s", t.name(ram.Name), t.name(disk.Name), clauses(t, parts))
}

// clauses are a sentence's clauses one after the other: "a; b" (the
// message "%s; %s": ； in Chinese and Japanese).
func clauses(t tongue, parts []string) string { return joined(t, "%s; %s", parts) }

// list is items one after the other: "a, b, c" (a list's separator is the
// message "%s, %s": 、 in Chinese and Japanese).
func list(t tongue, items []string) string { return joined(t, "%s, %s", items) }
