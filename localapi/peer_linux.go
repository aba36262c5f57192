package localapi

import (
	"net"

	"golang.org/x/sys/unix"
)

// peer is the uid and pid of the process at the other end of c, as the
// kernel recorded them when it connected (SO_PEERCRED).
func peer(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var cred *unix.Ucred
	var serr error
	if err := raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, 0, err
	}
	if serr != nil {
		return -1, 0, serr
	}
	return int(cred.Uid), int(cred.Pid), nil
}
