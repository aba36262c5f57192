package tray

import "os"

func writeFile(path string, n int) error { return os.WriteFile(path, make([]byte, n), 0o600) }
