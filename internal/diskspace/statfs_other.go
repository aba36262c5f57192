//go:build !linux && !darwin

package diskspace

import (
	"errors"
	"fmt"
)

// Of is not implemented where RAMBar does not run.
func Of(path string) (Stat, error) {
	return Stat{}, fmt.Errorf("statfs %s: %w", path, errors.ErrUnsupported)
}
