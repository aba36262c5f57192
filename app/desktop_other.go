//go:build !linux

package main

import "context"

// desktopCheck is one piece of the Linux desktop RAMBar uses (doctor).
type desktopCheck struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Found  string `json:"found"`
	Breaks string `json:"without_it"`

	name, found, breaks text
}

// desktopChecks: the Linux desktop's pieces; macOS has its own.
func desktopChecks(context.Context) []desktopCheck { return nil }
