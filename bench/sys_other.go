//go:build !linux && !darwin

package bench

import (
	"errors"
	"os"
)

const uncachedHow = "uncached I/O"

const haveFullFsync = false

var errOS = errors.New("storage benchmark: not supported on this OS")

func fullFsync(*os.File) error { return errOS }

func openUncached(path string, flag int, _ bool) (*os.File, bool, error) {
	f, err := os.OpenFile(path, flag, 0o644)
	return f, false, err
}

const canLayOut = false

func layOut(*os.File, int64) (bool, error) { return false, nil }

func dropCache(string) {}

func fsType(string) (string, error) { return "", errOS }

// IsMemoryFS is false where the benchmark does not run.
func IsMemoryFS(string) bool { return false }
