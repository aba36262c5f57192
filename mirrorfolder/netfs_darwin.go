//go:build darwin

package mirrorfolder

import "golang.org/x/sys/unix"

// netTypes are macOS's network file systems (statfs f_fstypename).
var netTypes = map[string]bool{
	"nfs": true, "smbfs": true, "afpfs": true, "webdav": true, "ftp": true, "cifs": true,
	"macfuse": true, "osxfuse": true, "fusefs": true,
}

// NetworkFS names the network file system path is on, "" for a local one.
// macFUSE mounts (sshfs and its kin) count as network ones.
func NetworkFS(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return ""
	}
	if name := unix.ByteSliceToString(st.Fstypename[:]); netTypes[name] {
		return name
	}
	return ""
}
