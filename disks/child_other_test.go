//go:build !linux

package disks

import "errors"

func childService() (*Service, error) { return nil, errors.New("child processes run on Linux only") }
