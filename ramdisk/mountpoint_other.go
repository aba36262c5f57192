//go:build !unix

package ramdisk

// IsMountPoint is false where mount points cannot be told by device numbers.
func IsMountPoint(dir string) bool { return false }

// TakenNames is empty where mount points cannot be told.
func TakenNames(root string) []string { return nil }
