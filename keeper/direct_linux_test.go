package keeper

import (
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"rambar/tree"

	"golang.org/x/sys/unix"
)

// TestLargeFilesRoundTripPastTheCache saves files from directMin up, of
// sizes that are and are not multiples of the block size and of the copy's
// buffers, into stores on the disk (direct I/O), on a tmpfs and on a ramfs
// (which refuses direct I/O: the usual copy), restores them into a tmpfs
// and compares every byte. On the disk, the saved objects are left out of
// the page cache.
func TestLargeFilesRoundTripPastTheCache(t *testing.T) {
	sizes := []int64{tree.DirectMin, tree.DirectMin + 1, tree.DirectMin + tree.DirectAlign - 1, 2*tree.DirectBuf + 3*tree.DirectAlign + 17, 3 * tree.DirectBuf}
	for _, c := range []struct {
		name string
		data func(t *testing.T) string
	}{
		{"the disk", func(t *testing.T) string { return t.TempDir() }},
		{"tmpfs", func(t *testing.T) string { return mountTmpfs(t, "128m") }},
		{"ramfs (refuses direct I/O)", func(t *testing.T) string { return mountFS(t, "ramfs", "mode=0755") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			k, st, v := keptDisk(t, c.data(t), "Large", mountTmpfs(t, "128m"))
			r := rand.New(rand.NewSource(7))
			for i, n := range sizes {
				b := make([]byte, n)
				r.Read(b)
				if err := os.WriteFile(filepath.Join(v.MountPoint, "f"+string(rune('a'+i))), b, 0o640); err != nil {
					t.Fatal(err)
				}
			}
			want := digest(t, v.MountPoint)
			res, err := k.Save(ctx, v, SaveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.CopiedFiles != len(sizes) {
				t.Errorf("copied %d files, want %d", res.CopiedFiles, len(sizes))
			}
			out := mountTmpfs(t, "128m")
			if _, err := k.store(st).Restore(ctx, "", out, "", nil); err != nil {
				t.Fatal(err)
			}
			sameTree(t, want, digest(t, out))
			var fs unix.Statfs_t
			if err := unix.Statfs(st.Backing, &fs); err != nil {
				t.Fatal(err)
			}
			if fs.Type != unix.TMPFS_MAGIC && fs.Type != unix.RAMFS_MAGIC {
				if c := cachedShare(t, st.Backing); c > 0.1 {
					t.Errorf("%.0f%% of the saved objects are in the page cache, want them written past it", 100*c)
				}
			}
		})
	}
}

// cachedShare is the share of the bytes of the object files under dir
// (the files of at least directMin) that are in the page cache.
func cachedShare(t *testing.T, dir string) float64 {
	t.Helper()
	var in, all int
	err := filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil || fi.Size() < tree.DirectMin {
			return err
		}
		m, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
		if err != nil {
			return err
		}
		defer unix.Munmap(m)
		vec := make([]byte, (len(m)+os.Getpagesize()-1)/os.Getpagesize())
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			return e
		}
		for _, v := range vec {
			if v&1 != 0 {
				in++
			}
		}
		all += len(vec)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if all == 0 {
		t.Fatal("no object of directMin or more was saved")
	}
	return float64(in) / float64(all)
}
