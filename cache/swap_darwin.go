//go:build darwin

package cache

import "golang.org/x/sys/unix"

// exchange swaps the two paths atomically (renamex_np RENAME_SWAP): at no
// moment is either name missing.
func exchange(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
