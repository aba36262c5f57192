//go:build unix

package record

import "syscall"

const oNoFollow = syscall.O_NOFOLLOW
