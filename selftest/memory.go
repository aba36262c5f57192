package selftest

import (
	"fmt"

	"rambar/ramdisk"
)

// Slack in the memory rules: what a disk holds beyond its data (the
// helper's own memory on macOS, file system structures), and how far a
// measure may fall short of what the rule expects.
const (
	heldSlack = 64 * ramdisk.MiB
	smallHeld = 8 * ramdisk.MiB // "about nothing" for a disk that takes memory as written
)

// expectHeld is the memory a disk planned as p may hold after written bytes
// of files were put on it, as a range, with the rule in words. It is the
// plan's own rule (ramdisk.AllocationFor: a macOS disk image under 4 GiB
// takes its whole size when it is attached; from 4 GiB, and on tmpfs, memory
// is taken as files are written), so the self-test checks what the menu
// and the CLI promise.
func expectHeld(p ramdisk.Plan, written ramdisk.Size) (lo, hi ramdisk.Size, rule string) {
	if p.Allocation == ramdisk.AllocUpfront {
		lo, hi = p.Size*3/4, p.Size+heldSlack
		return lo, hi, fmt.Sprintf("a %s %s disk takes its whole size when it is made: it must hold about %s (%s to %s)",
			p.Size.Short(), p.FS.Label(), p.Size.Short(), lo.Short(), hi.Short())
	}
	lo, hi = written*9/10, written+heldSlack
	if written == 0 {
		lo, hi = 0, smallHeld
	}
	return lo, hi, fmt.Sprintf("a %s %s disk takes memory only as files are written: with %s written it must hold %s to %s, far less than its size",
		p.Size.Short(), p.FS.Label(), written.Short(), lo.Short(), hi.Short())
}
