package localapi

import (
	"net"

	"golang.org/x/sys/unix"
)

// peer is the uid and pid of the process at the other end of c, as the
// kernel recorded them when it connected (LOCAL_PEERCRED, LOCAL_PEERPID).
func peer(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Xucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if serr == nil {
			pid, _ = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		}
	}); err != nil {
		return -1, 0, err
	}
	if serr != nil {
		return -1, 0, serr
	}
	return int(cred.Uid), pid, nil
}
