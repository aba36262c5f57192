package snapshot

import "golang.org/x/sys/unix"

// tmpfs takes pages for data and a page for a symlink past 127 bytes,
// nothing for a folder or an empty file; ext4 (zram) a block for each
// folder and for a symlink past 59 bytes.
var (
	tmpfsCharge = charge{block: 4096, inlineLink: 128}
	ext4Charge  = charge{block: 4096, dir: 4096, inlineLink: 60}
)

// chargeOf is what the file system of dst charges for a restored tree.
func chargeOf(dst string) charge {
	var fs unix.Statfs_t
	if unix.Statfs(dst, &fs) != nil {
		return otherCharge
	}
	c := otherCharge
	switch fs.Type {
	case unix.TMPFS_MAGIC:
		c = tmpfsCharge
	case unix.EXT4_SUPER_MAGIC:
		c = ext4Charge
	}
	if fs.Bsize > 0 {
		c.block = fs.Bsize
		if c.dir > 0 {
			c.dir = fs.Bsize
		}
	}
	return c
}

// inodesFree is how many more files the file system of dst can hold; ok
// is false when it does not count them.
func inodesFree(dst string) (int64, bool) {
	var fs unix.Statfs_t
	if unix.Statfs(dst, &fs) != nil || fs.Files == 0 {
		return 0, false
	}
	return int64(fs.Ffree), true
}
