package mirrorfolder

import (
	"os"
	"testing"
)

// TestNetworkFUSE: a folder under a FUSE mount that reaches another
// machine (sshfs, rclone...) is on a network file system; one under a
// local FUSE mount, or under a network mount's sibling, is not. The
// innermost mount holding the folder decides.
func TestNetworkFUSE(t *testing.T) {
	info := `22 1 0:21 / / rw - ext4 /dev/vda rw
30 22 0:40 / /home/ann/remote rw,nosuid,nodev - fuse.sshfs ann@host:/srv rw,user_id=1000
31 22 0:41 / /home/ann/cloud rw - fuse.rclone drive: rw
32 22 0:42 / /home/ann/ntfs rw - fuseblk /dev/sdb1 rw
33 22 0:43 / /home/ann/with\040space rw - fuse.sshfs ann@h:/ rw
34 30 0:44 / /home/ann/remote/local rw - fuse.bindfs /x rw
`
	cases := []struct{ path, want string }{
		{"/home/ann/remote", "fuse.sshfs"},
		{"/home/ann/remote/site", "fuse.sshfs"},
		{"/home/ann/cloud/docs", "fuse.rclone"},
		{"/home/ann/ntfs/site", ""},
		{"/home/ann/remote-not/site", ""},
		{"/home/ann/with space/site", "fuse.sshfs"},
		{"/home/ann/remote/local/site", ""},
		{"/home/ann/site", ""},
	}
	for _, c := range cases {
		if got := netFUSEType(info, c.path); got != c.want {
			t.Errorf("%s: %q, want %q", c.path, got, c.want)
		}
	}
}

// TestLocalFoldersAreNotNetwork: this machine's own folders (ext4, tmpfs)
// are not on a network file system.
func TestLocalFoldersAreNotNetwork(t *testing.T) {
	for _, p := range []string{t.TempDir(), "/dev/shm", os.TempDir()} {
		if fs := NetworkFS(p); fs != "" {
			t.Errorf("%s: %q", p, fs)
		}
	}
}
