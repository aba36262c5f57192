// Package diskspace measures a mounted file system: its size, the space an
// unprivileged writer may still use, and the files on it (statfs(2) on Linux
// and macOS). It is the one free-space rule of the engines, the benchmark and
// the trial.
package diskspace

// Stat is a file system's statistics, in bytes except Files.
type Stat struct {
	Total int64 // size
	Used  int64 // blocks in use (the root reserve counts as free here)
	Free  int64 // what an unprivileged writer may still use (f_bavail)
	Files int64 // inodes in use
}

// Free is the bytes an unprivileged writer may still use on the file system
// that holds path.
func Free(path string) (int64, error) {
	st, err := Of(path)
	return st.Free, err
}
