//go:build !linux && !darwin

package cache

import "errors"

// exchange is not available here: caches on a RAM disk need an atomic swap.
func exchange(a, b string) error {
	return errors.New("atomic exchange of paths is not supported on this OS")
}
