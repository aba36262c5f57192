package disks

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"

	"rambar/ramdisk"
)

// TestMain runs the test binary as a child process when asked to
// (DISKS_CHILD), so tests can race real processes against each other.
func TestMain(m *testing.M) {
	if op := os.Getenv("DISKS_CHILD"); op != "" {
		os.Exit(child(op))
	}
	os.Exit(m.Run())
}

// childExists is a child's exit code for ErrExists (the CLI's exit 8).
const childExists = 8

// child waits until its stdin is closed (so the parent can start several at
// once), runs one operation and exits 0, childExists, or 1.
func child(op string) int {
	io.Copy(io.Discard, os.Stdin)
	s, err := childService()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	switch op {
	case "create":
		_, err = s.Create(ctx, CreateRequest{Input: ramdisk.Input{Name: os.Getenv("DISKS_NAME"), Size: "64M"}})
	case "reclaim":
		err = childReclaim(ctx, s, os.Getenv("DISKS_NAME"), os.Getenv("DISKS_KILL_AT"))
	case "inplace-create", "inplace-eject":
		err = childInPlace(ctx, s, op)
	case "cache-on", "cache-off":
		err = childCache(ctx, s, op)
	case "try-disk": // a try killed with its disk made
		if _, _, err = s.MakeTryDisk(ctx, 1<<20, 10); err == nil {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	default:
		err = fmt.Errorf("unknown child op %q", op)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, ramdisk.ErrExists):
		return childExists
	}
	fmt.Fprintln(os.Stderr, err)
	return 1
}
