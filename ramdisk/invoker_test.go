package ramdisk

import (
	"os"
	"testing"
)

// TestInvokerOf: the one rule for the user RAMBar works for, for every
// part (restores, mount owners, Mirror folders, the engine's disks).
func TestInvokerOf(t *testing.T) {
	self := Invoker{UID: os.Getuid(), GID: os.Getgid()}
	for _, c := range []struct {
		name string
		euid int
		env  map[string]string
		want Invoker
	}{
		{"root under sudo", 0, map[string]string{"SUDO_UID": "1000", "SUDO_GID": "1001"}, Invoker{1000, 1001, true}},
		{"not root", 1000, map[string]string{"SUDO_UID": "1001", "SUDO_GID": "1001"}, self},
		{"no SUDO_UID", 0, map[string]string{"SUDO_GID": "1001"}, self},
		{"not a number", 0, map[string]string{"SUDO_UID": "10x", "SUDO_GID": "1001"}, self},
		{"negative", 0, map[string]string{"SUDO_UID": "-1", "SUDO_GID": "1001"}, self},
		{"the 'no owner' value", 0, map[string]string{"SUDO_UID": "4294967295", "SUDO_GID": "1"}, self},
		{"too large", 0, map[string]string{"SUDO_UID": "4294967296", "SUDO_GID": "1"}, self},
		{"pkexec", 0, map[string]string{"PKEXEC_UID": "0", "SUDO_GID": "7"}, Invoker{0, 0, true}},
		{"sudo before pkexec", 0, map[string]string{"SUDO_UID": "1000", "SUDO_GID": "5", "PKEXEC_UID": "1001"}, Invoker{1000, 5, true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := InvokerOf(c.euid, func(k string) string { return c.env[k] }); got != c.want {
				t.Errorf("InvokerOf = %+v, want %+v", got, c.want)
			}
		})
	}
	// A group not given is the user's primary group (root's: 0).
	if got := InvokerOf(0, func(k string) string { return map[string]string{"SUDO_UID": "0"}[k] }); got != (Invoker{0, 0, true}) {
		t.Errorf("no SUDO_GID: %+v, want root's primary group", got)
	}
}
