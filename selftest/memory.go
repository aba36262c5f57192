package selftest

import (
	"fmt"

	"rambar/ramdisk"
)

// Slack in the memory rules: what a disk holds beyond its data. A macOS
// disk image is the heap of its own diskimages-helper process, which holds
// about 9 to 13 MB of its own with nothing written (seed 000), plus what
// the file system writes; tmpfs pages are the data alone.
const (
	imageSlack = 64 * ramdisk.MiB
	tmpfsSlack = 8 * ramdisk.MiB
)

// expectHeld is the memory a disk planned as p may hold after written bytes
// of files were put on it, as a range, with the rule in words. It is the
// plan's own rule (ramdisk.AllocationFor: a macOS disk image under 4 GiB
// takes its whole size when it is attached; from 4 GiB, and on tmpfs, memory
// is taken as files are written), so the self-test checks what the menu
// and the CLI promise.
func expectHeld(p ramdisk.Plan, written ramdisk.Size) (lo, hi ramdisk.Size, rule string) {
	slack := tmpfsSlack
	if p.FS.IsDiskImage() {
		slack = imageSlack
	}
	if p.Allocation == ramdisk.AllocUpfront {
		lo, hi = p.Size*3/4, p.Size+slack
		return lo, hi, fmt.Sprintf("a %s %s disk takes its whole size when it is made: it must hold about %s (%s to %s)",
			p.Size.Short(), p.FS.Label(), p.Size.Short(), lo.Short(), hi.Short())
	}
	lo, hi = written*9/10, written+slack
	return lo, hi, fmt.Sprintf("a %s %s disk takes memory only as files are written: with %s written it must hold %s to %s, far less than its size",
		p.Size.Short(), p.FS.Label(), written.Short(), lo.Short(), hi.Short())
}
