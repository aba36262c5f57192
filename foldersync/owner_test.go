package foldersync

import (
	"os"
	"testing"
)

// TestNewOwnerFollowsTheOneInvokerRule: a path the folder did not have
// goes, as root, to the user RAMBar works for by ramdisk.Invoking's rule
// (sudo, then pkexec; a group not given is the user's primary group), else
// to the folder's owner. Before, the write-back read SUDO_UID its own way:
// pkexec's user was passed over and a missing SUDO_GID gave no group.
func TestNewOwnerFollowsTheOneInvokerRule(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the owner rule is root's: run as root (CI does)")
	}
	tests := []struct {
		name string
		env  map[string]string
		want owner
	}{
		{"root alone: the folder's owner", nil, owner{1000, 1001}},
		{"sudo", map[string]string{"SUDO_UID": "4321", "SUDO_GID": "4322"}, owner{4321, 4322}},
		{"pkexec", map[string]string{"PKEXEC_UID": "4321"}, owner{4321, os.Getgid()}},
		{"sudo without a group", map[string]string{"SUDO_UID": "4321"}, owner{4321, os.Getgid()}},
		{"not a user id", map[string]string{"SUDO_UID": "x", "SUDO_GID": "4322"}, owner{1000, 1001}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"SUDO_UID", "SUDO_GID", "PKEXEC_UID", "PKEXEC_GID"} {
				t.Setenv(k, tt.env[k])
				if tt.env[k] == "" {
					os.Unsetenv(k)
				}
			}
			if got := newOwner(1000, 1001); got != tt.want {
				t.Errorf("newOwner = %+v, want %+v", got, tt.want)
			}
		})
	}
}
