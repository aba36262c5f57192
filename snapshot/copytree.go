package snapshot

import (
	"context"

	"rambar/tree"
)

// CopyTree copies the tree at src into the existing folder dst the way
// Reclaim copies a disk back: every kind of file with its metadata, through
// descriptors, the room checked first. It is for finishing a reclaim that
// was stopped (disks.Service.ResumeReclaim). It returns what could not be
// set (an xattr the system refused).
func CopyTree(ctx context.Context, src, dst string, progress tree.ProgressFunc, copyFile tree.CopyFunc) ([]tree.NotKept, error) {
	entries, err := tree.Entries(src)
	if err != nil {
		return nil, err
	}
	return BuildTree(ctx, entries, dst,
		Build{From: src, Src: tree.SamePath, Progress: tree.Phase(progress, "copying back"), CheckSpace: true, CopyFile: copyFile})
}
