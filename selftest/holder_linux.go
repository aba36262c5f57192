package selftest

import "syscall"

// holderAttr makes the holder die with this process (a self-test killed
// while it holds the disk leaves no holder behind).
func holderAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
