//go:build !linux && !darwin

package disks

// fsName names the file system dir is on, for a warning.
func fsName(string) string { return "a file system" }
