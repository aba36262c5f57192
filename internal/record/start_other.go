//go:build unix && !linux && !darwin

package record

// StartTime is unknown here: 0 (the process id alone tells).
func StartTime(pid int) uint64 { return 0 }
