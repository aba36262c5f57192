package main

import (
	"rambar/internal/run"
	"rambar/linux"
	"rambar/ramdisk"
)

func newEngine() (ramdisk.Engine, error) { return linux.New(run.System()), nil }
