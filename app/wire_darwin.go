package main

import (
	"rambar/darwin"
	"rambar/internal/run"
	"rambar/ramdisk"
)

func newEngine() (ramdisk.Engine, error) { return darwin.New(run.System()), nil }
