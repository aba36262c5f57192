//go:build !linux

package selftest

import "syscall"

// holderAttr: only Linux ends a child with its parent; elsewhere the
// holder lives holderSeconds at most, and a later run ejects the disk
// with force.
func holderAttr() *syscall.SysProcAttr { return nil }
