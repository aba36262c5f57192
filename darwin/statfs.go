package darwin

// FSStat is a mounted file system's statistics.
type FSStat struct {
	Total, Free int64 // bytes
	Files       int64 // inodes in use
}

// StatFS measures the file system mounted at path (statfs(2) on macOS).
type StatFS func(path string) (FSStat, error)
