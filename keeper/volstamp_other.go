//go:build !linux && !darwin

package keeper

// volumeStamp cannot tell one disk from the next here: "" (a stopped
// reclaim is then resumed by what its record and the disk hold).
func volumeStamp(string) string { return "" }
