// Package atomicfile replaces files atomically: the data goes to a
// temporary file in the same folder, which is renamed over the target, so a
// crash or kill -9 at any moment leaves either the old file or the new one,
// whole. The durable form (WriteFile) also fsyncs the file before the
// rename and the folder after it, so the new file survives a power cut; the
// fast form (WriteFast) does not wait for the disk, and after a power cut
// the file may be old, new or empty: it is for files that are checked when
// read and can be lost.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteFile replaces path with data atomically and durably, with
// permissions perm.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

// WriteFast replaces path with data atomically, with permissions perm,
// without waiting for stable storage.
func WriteFast(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// WriteFrom replaces path atomically with what fill writes (durably when
// durable), with permissions perm: for data too large to hold whole. On an
// error of fill nothing is replaced.
func WriteFrom(path string, perm os.FileMode, durable bool, fill func(w io.Writer) error) error {
	return writeWith(path, perm, durable, fill)
}

func write(path string, data []byte, perm os.FileMode, durable bool) error {
	return writeWith(path, perm, durable, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

func writeWith(path string, perm os.FileMode, durable bool, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return fmt.Errorf("atomicfile: create temp for %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", tmp, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: chmod %s: %w", tmp, err)
	}
	if durable {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("atomicfile: fsync %s: %w", tmp, err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: rename %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	return SyncDir(dir)
}

// TempWriter reads a temporary file's name as this package makes it
// (".BASE.tmp-PID-RANDOM"): the id of the process that wrote it, so that a
// folder's owner can remove what a writer killed between its write and its
// rename left, and never a write under way. ok is false for any other
// name.
func TempWriter(name string) (pid int, ok bool) {
	// The last ".tmp-": the base may hold one (a settings file's link
	// target is the user's to name); the random part is digits.
	i := strings.LastIndex(name, ".tmp-")
	if i < 0 || !strings.HasPrefix(name, ".") {
		return 0, false
	}
	pidText, _, cut := strings.Cut(name[i+len(".tmp-"):], "-")
	pid, err := strconv.Atoi(pidText)
	return pid, cut && err == nil && pid > 0
}

// SyncDir fsyncs a folder so that renames and creations inside it survive a
// power cut.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: open dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("atomicfile: fsync dir %s: %w", dir, err)
	}
	return nil
}
