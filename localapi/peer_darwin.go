package localapi

import "golang.org/x/sys/unix"

// peerOf reads the peer of socket fd (LOCAL_PEERCRED, LOCAL_PEERPID).
func peerOf(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	pid, _ = unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	return int(cred.Uid), pid, nil
}
