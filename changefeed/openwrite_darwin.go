//go:build darwin

package changefeed

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"
	"unsafe"

	"github.com/ebitengine/purego"
)

// libproc's calls and flavors (libproc.h, sys/proc_info.h).
const (
	procAllPIDs        = 1 // PROC_ALL_PIDS
	procPIDListFDs     = 1 // PROC_PIDLISTFDS
	procPIDFDVnodePath = 2 // PROC_PIDFDVNODEPATHINFO
	proxFDTypeVnode    = 1 // PROX_FDTYPE_VNODE
	procFDInfoSize     = 8 // struct proc_fdinfo: fd, type
	vnodePathInfoSize  = int32(unsafe.Sizeof(vnodeFdInfoWithPath{}))
	lsofTimeout        = 10 * time.Second
	lsofPath           = "/usr/sbin/lsof"
	listPIDsSlack      = 64 // processes started between the two calls
)

var (
	procListPIDs  func(typ, typeinfo uint32, buf []int32, size int32) int32
	procPIDInfo   func(pid, flavor int32, arg uint64, buf []byte, size int32) int32
	procPIDFDInfo func(pid, fd, flavor int32, buf *vnodeFdInfoWithPath, size int32) int32
)

// libproc binds libproc's calls once.
var libproc = sync.OnceValue(func() error {
	sys, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return fmt.Errorf("load libSystem: %w", err)
	}
	purego.RegisterLibFunc(&procListPIDs, sys, "proc_listpids")
	purego.RegisterLibFunc(&procPIDInfo, sys, "proc_pidinfo")
	purego.RegisterLibFunc(&procPIDFDInfo, sys, "proc_pidfdinfo")
	return nil
})

// openWriters returns the paths under roots of the files some process has
// open for writing: through libproc (the processes this user may look
// at, which are the user's own programs), else as lsof lists them; an
// error when neither can tell.
func openWriters(roots []string) ([]string, error) {
	found, err := libprocWriters(roots)
	if err == nil {
		return found, nil
	}
	found, lerr := lsofOpenWriters(roots[0])
	if lerr != nil {
		return nil, errors.Join(err, lerr)
	}
	return keepUnder(roots, found), nil
}

// libprocWriters asks libproc: every process, each one's descriptors, and
// of each file descriptor its path and open flags (fi_openflags &
// FWRITE). A process that ended or may not be looked at is passed over.
func libprocWriters(roots []string) ([]string, error) {
	if err := libproc(); err != nil {
		return nil, err
	}
	n := procListPIDs(procAllPIDs, 0, nil, 0)
	if n <= 0 {
		return nil, fmt.Errorf("proc_listpids: %d", n)
	}
	pids := make([]int32, int(n)/4+listPIDsSlack)
	n = procListPIDs(procAllPIDs, 0, pids, int32(len(pids)*4))
	if n <= 0 {
		return nil, fmt.Errorf("proc_listpids: %d", n)
	}
	var found []string
	var info vnodeFdInfoWithPath
	for _, pid := range pids[:int(n)/4] {
		if pid <= 0 {
			continue
		}
		size := procPIDInfo(pid, procPIDListFDs, 0, nil, 0)
		if size <= 0 {
			continue
		}
		buf := make([]byte, size+16*procFDInfoSize)
		size = procPIDInfo(pid, procPIDListFDs, 0, buf, int32(len(buf)))
		for i := 0; i+procFDInfoSize <= int(size); i += procFDInfoSize {
			fd := int32(binary.LittleEndian.Uint32(buf[i:]))
			if binary.LittleEndian.Uint32(buf[i+4:]) != proxFDTypeVnode {
				continue
			}
			if procPIDFDInfo(pid, fd, procPIDFDVnodePath, &info, vnodePathInfoSize) != vnodePathInfoSize {
				continue
			}
			if p, w := info.writablePath(); w {
				if _, _, ok := relUnder(roots, p); ok {
					found = append(found, p)
				}
			}
		}
	}
	return found, nil
}

// lsofOpenWriters lists the files open for writing on the file system
// mounted at root, with lsof (argv only). lsof exits 1 when it finds
// nothing.
func lsofOpenWriters(root string) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), lsofTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lsofPath, "-n", "-P", "-w", "-F", "pfan", "+f", "--", root)
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin:/usr/sbin:/sbin"}
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return nil, fmt.Errorf("lsof %s: %w", root, err)
	}
	return lsofWriters(out), nil
}

// keepUnder keeps the paths under roots.
func keepUnder(roots, paths []string) []string {
	kept := paths[:0]
	for _, p := range paths {
		if _, _, ok := relUnder(roots, p); ok {
			kept = append(kept, p)
		}
	}
	return kept
}
