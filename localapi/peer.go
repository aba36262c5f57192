//go:build unix

package localapi

import "net"

// peer is the uid and pid of the process at the other end of c, as the
// kernel recorded them when it connected (peerOf, per system).
func peer(c *net.UnixConn) (uid, pid int, err error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, 0, err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) { uid, pid, serr = peerOf(int(fd)) }); err != nil {
		return -1, 0, err
	}
	if serr != nil {
		return -1, 0, serr
	}
	return uid, pid, nil
}
