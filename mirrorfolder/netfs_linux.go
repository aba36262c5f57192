//go:build linux

package mirrorfolder

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// netMagic are the statfs magic numbers of Linux's network file systems.
var netMagic = map[int64]string{
	0x6969:     "nfs",
	0x517b:     "smb",
	0xff534d42: "cifs",
	0xfe534d42: "smb2",
	0x73757245: "coda",
	0x5346414f: "afs",
	0x6b414653: "afs",
	0x00c36400: "ceph",
	0x01021997: "9p",
	0x0bd00bd0: "lustre",
	0x564c:     "ncp",
	0x47504653: "gpfs",
}

// netFUSE are FUSE file systems (mountinfo's "fuse.NAME") that reach
// another machine.
var netFUSE = map[string]bool{
	"sshfs": true, "rclone": true, "s3fs": true, "gcsfuse": true, "glusterfs": true, "curlftpfs": true,
	"smbnetfs": true, "davfs": true, "goofys": true, "blobfuse": true, "blobfuse2": true, "ceph-fuse": true,
	"cephfs": true, "juicefs": true, "gvfsd-fuse": true, "nfs": true, "mountpoint-s3": true,
}

// NetworkFS names the network file system path is on, "" for a local one
// (statfs magic; for FUSE, the type mountinfo gives the mount holding it).
func NetworkFS(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return ""
	}
	if name, ok := netMagic[int64(st.Type)]; ok {
		return name
	}
	if st.Type != unix.FUSE_SUPER_MAGIC {
		return ""
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "fuse"
	}
	return netFUSEType(string(b), path)
}

// netFUSEType is the type of the mount holding path when it is a network
// FUSE file system ("fuse.sshfs"), "" otherwise.
func netFUSEType(mountinfo, path string) string {
	best, fstype := "", ""
	for _, line := range strings.Split(mountinfo, "\n") {
		f := strings.Fields(line)
		sep := slices.Index(f, "-")
		if len(f) < 5 || sep < 0 || sep+1 >= len(f) {
			continue
		}
		mp := tree.UnescapeOctal(f[4])
		if mp == path || mp == "/" || strings.HasPrefix(path, strings.TrimSuffix(mp, "/")+"/") {
			if len(mp) >= len(best) {
				best, fstype = mp, f[sep+1]
			}
		}
	}
	sub := strings.TrimPrefix(strings.TrimPrefix(fstype, "fuseblk."), "fuse.")
	if netFUSE[filepath.Base(sub)] {
		return fstype
	}
	return ""
}
