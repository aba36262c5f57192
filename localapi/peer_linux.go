package localapi

import "golang.org/x/sys/unix"

// peerOf reads the peer of socket fd (SO_PEERCRED).
func peerOf(fd int) (uid, pid int, err error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, 0, err
	}
	return int(cred.Uid), int(cred.Pid), nil
}
