package record

import "golang.org/x/sys/unix"

// StartTime is when process pid started (microseconds since the epoch,
// from kern.proc.pid); 0 when it is gone or cannot be read.
func StartTime(pid int) uint64 {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || k.Proc.P_pid != int32(pid) {
		return 0
	}
	t := k.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec)
}
