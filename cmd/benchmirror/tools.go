//go:build linux

package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

func syncfs(dir string) {
	f, err := os.Open(dir)
	if err == nil {
		unix.Syncfs(int(f.Fd()))
		f.Close()
	}
}

// dropCaches writes out and then drops the clean page cache of every file
// system (root), so that what a tool reads next comes from the disk.
func dropCaches() error {
	unix.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3\n"), 0); err != nil {
		return fmt.Errorf("drop caches: %w", err)
	}
	return nil
}

// timed runs argv and then syncfs on dst's file system, so the tools'
// writes are as durable as mirror's (which flushes before committing).
func timed(dst string, argv ...string) (time.Duration, error) {
	start := time.Now()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	syncfs(dst)
	return time.Since(start), nil
}

// tarPipe times tar -c -C from . | tar -x -C to (two processes joined by
// a pipe, no shell), then syncfs of to.
func tarPipe(from, to string) (time.Duration, error) {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return 0, err
	}
	start := time.Now()
	c := exec.Command("tar", "-c", "-C", from, ".")
	x := exec.Command("tar", "-x", "-C", to)
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	c.Stdout, x.Stdin = pw, pr
	c.Stderr, x.Stderr = os.Stderr, os.Stderr
	if err := x.Start(); err != nil {
		return 0, err
	}
	cerr := c.Run()
	pw.Close()
	xerr := x.Wait()
	pr.Close()
	if cerr != nil || xerr != nil {
		return 0, fmt.Errorf("tar -c | tar -x: %v %v", cerr, xerr)
	}
	syncfs(to)
	return time.Since(start), nil
}

// ours runs a Keeper operation in a child and returns its time and peak
// resident memory (as the child reports it: see peakRSS).
func ours(op, data, vol string) (time.Duration, int64, error) {
	d, rss, _, err := oursAll(op, data, vol)
	return d, rss, err
}

// oursAll is ours that also returns how long a Mirror disk's write-back
// took, as the child reports it (part of the time).
func oursAll(op, data, vol string) (d time.Duration, rss int64, wb time.Duration, err error) {
	start := time.Now()
	cmd := exec.Command("/proc/self/exe", "child", op, data, vol)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", op, err)
	}
	d = time.Since(start)
	var files, bytes int64
	if _, err := fmt.Sscanf(string(out), "%d %d %d %d", &files, &bytes, &rss, &wb); err != nil {
		return 0, 0, 0, fmt.Errorf("%s: reading %q: %w", op, out, err)
	}
	return d, rss, wb, nil
}

// allocated is the disk space the files under dir take (blocks, not sizes).
func allocated(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		var st unix.Stat_t
		if err := unix.Lstat(p, &st); err != nil {
			return err
		}
		n += st.Blocks * 512
		return nil
	})
	return n, err
}

// places makes what a figure needs: the two tmpfs of tmpfsPair, and a new
// folder under dest on the local disk (work). done unmounts and removes
// them all.
func places(dest string) (vol, back, work string, done func(), err error) {
	vol, back, unmount, err := tmpfsPair()
	if err != nil {
		return "", "", "", nil, err
	}
	if work, err = os.MkdirTemp(dest, "rambar-bench-"); err != nil {
		unmount()
		return "", "", "", nil, err
	}
	return vol, back, work, func() { os.RemoveAll(work); unmount() }, nil
}

// tmpfsPair mounts two tmpfs under a new temporary folder: the disk and the
// restore target, as RAM disks are. done unmounts and removes them.
func tmpfsPair() (vol, back string, done func(), err error) {
	src, err := os.MkdirTemp("", "rambar-bench-src-")
	if err != nil {
		return "", "", nil, err
	}
	var mounted []string
	done = func() {
		for _, m := range mounted {
			unix.Unmount(m, unix.MNT_DETACH)
		}
		os.RemoveAll(src)
	}
	vol, back = filepath.Join(src, "vol"), filepath.Join(src, "back")
	for _, m := range []string{vol, back} {
		os.Mkdir(m, 0o755)
		if err := unix.Mount("rambar-bench", m, "tmpfs", 0, "size=16g,mode=0755"); err != nil {
			done()
			return "", "", nil, fmt.Errorf("mount tmpfs: %w", err)
		}
		mounted = append(mounted, m)
	}
	return vol, back, done, nil
}
