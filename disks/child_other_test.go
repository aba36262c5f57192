//go:build !linux

package disks

import (
	"context"
	"errors"
)

func childService() (*Service, error) { return nil, errors.New("child processes run on Linux only") }

func childReclaim(ctx context.Context, s *Service, name, killAt string) error {
	return errors.New("child processes run on Linux only")
}

func childCache(context.Context, *Service, string) error {
	return errors.New("child processes run on Linux only")
}

func childInPlace(context.Context, *Service, string) error {
	return errors.New("child processes run on Linux only")
}
