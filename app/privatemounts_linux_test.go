//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"rambar/tree"
)

// privateMountsEnv marks the test binary run again in a mount namespace of
// its own.
const privateMountsEnv = "RAMBAR_TEST_PRIVATE_MOUNTS"

// inPrivateMounts runs the tests (as root) in the test binary started again
// in a mount namespace of its own, in which the RAMBar disks a developer
// has mounted are unmounted first: the CLI and the menu the tests run list
// every RAMBar disk of the machine, wherever it is mounted, and would show
// the developer's beside the tests' own. The developer's disks, in the
// machine's namespace, are not touched. ran reports whether the tests ran
// there (with their exit code); else they run here.
func inPrivateMounts() (code int, ran bool) {
	if os.Geteuid() != 0 {
		return 0, false
	}
	if os.Getenv(privateMountsEnv) != "" {
		if err := unmountOthersDisks(); err != nil {
			fmt.Fprintln(os.Stderr, "private mounts:", err)
			return 1, true
		}
		return 0, false
	}
	cmd := exec.Command(os.Args[0], os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), privateMountsEnv+"=1")
	// Go makes / private (recursively) in the new namespace before exec.
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS, Pdeathsig: syscall.SIGKILL}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		// No namespaces here (a container without CAP_SYS_ADMIN): the
		// tests run beside whatever is mounted.
		signal.Stop(sigs)
		fmt.Fprintln(os.Stderr, "private mounts: the tests run in this mount namespace:", err)
		return 0, false
	}
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	signal.Stop(sigs)
	if ee, ok := err.(*exec.ExitError); ok {
		return max(ee.ExitCode(), 1), true
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "private mounts:", err)
		return 1, true
	}
	return 0, true
}

// unmountOthersDisks lazily unmounts, in this namespace only, every RAMBar
// disk mounted before the tests (tmpfs "rambar" or "rambar:NAME", ext4 on a
// zram device), deepest first. It refuses to run in the namespace of the
// process that started it.
func unmountOthersDisks() error {
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return fmt.Errorf("readlink /proc/self/ns/mnt: %w", err)
	}
	parent, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/mnt")
	if err != nil || parent == self {
		return fmt.Errorf("not in a mount namespace of its own (%s, parent %s): %v", self, parent, err)
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return fmt.Errorf("open mountinfo: %w", err)
	}
	defer f.Close()
	var points []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		a, b := strings.Fields(pre), strings.Fields(post)
		if !ok || len(a) < 5 || len(b) < 2 {
			continue
		}
		fstype, source := b[0], b[1]
		if fstype == "tmpfs" && (source == "rambar" || strings.HasPrefix(source, "rambar:")) ||
			fstype == "ext4" && strings.HasPrefix(source, "/dev/zram") {
			points = append(points, tree.UnescapeOctal(a[4]))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read mountinfo: %w", err)
	}
	for i := len(points) - 1; i >= 0; i-- {
		if err := syscall.Unmount(points[i], syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("umount %s (in the tests' own namespace): %w", points[i], err)
		}
	}
	return nil
}
