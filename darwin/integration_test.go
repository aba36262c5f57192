//go:build darwin && integration

package darwin

import (
	"os/exec"
	"testing"

	"rambar/internal/run"
	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// TestIntegration runs the conformance suite against the real tools on a Mac:
//
//	go test -tags integration -run Integration ./darwin/
//
// It makes and ejects small RAM disks named RAMBarIT*.
func TestIntegration(t *testing.T) {
	for _, fs := range []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus} {
		t.Run(string(fs), func(t *testing.T) {
			ramdisktest.Run(t, func(t *testing.T) ramdisktest.Harness {
				return ramdisktest.Harness{
					Engine: New(run.System()),
					FS:     fs,
					Prefix: "RAMBarIT",
					Hold: func(t *testing.T, v ramdisk.Volume) func() {
						cmd := exec.Command("/bin/sleep", "600")
						cmd.Dir = v.MountPoint
						if err := cmd.Start(); err != nil {
							t.Fatal(err)
						}
						return func() { cmd.Process.Kill(); cmd.Wait() }
					},
				}
			})
		})
	}
}
