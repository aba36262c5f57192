package mirror

import (
	"context"
	"path/filepath"
)

// CopyTree copies the tree at src into the existing folder dst the way
// Reclaim copies a disk back: files, folders and symbolic links with their
// modes, times and extended attributes, the room checked first. It is for
// finishing a reclaim that was stopped (disks.Service.ResumeReclaim).
func CopyTree(ctx context.Context, src, dst string, progress ProgressFunc, copyFile CopyFunc) error {
	entries, err := treeEntries(src)
	if err != nil {
		return err
	}
	return buildTree(ctx, entries, func(x Entry) string { return filepath.Join(src, filepath.FromSlash(x.Path)) },
		dst, phase(progress, "copying back"), true, nil, copyFile)
}
