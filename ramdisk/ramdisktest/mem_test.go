package ramdisktest

import (
	"testing"

	"rambar/ramdisk"
)

func TestMemConforms(t *testing.T) {
	Run(t, func(t *testing.T) Harness {
		m := NewMem(t.TempDir(), ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB})
		return Harness{
			Engine: m,
			Hold: func(t *testing.T, v ramdisk.Volume) func() {
				return m.Hold(v, ramdisk.Holder{PID: 42, Command: "vim"})
			},
		}
	})
}
