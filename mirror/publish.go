package mirror

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"rambar/internal/atomicfile"
)

// publish writes snapshot id into a Mirror disk's folder so that the folder
// is, at every moment, either its old whole tree or the new one: the new
// tree is built beside it (unchanged files hard-linked from the old tree,
// the others copied from the store), flushed, and swapped in with one atomic
// exchange; the old tree is then removed.
func (k *Keeper) publish(ctx context.Context, st State, id string) error {
	s := k.store(st)
	m, err := s.manifest(id)
	if err != nil {
		return err
	}
	folder := filepath.Clean(st.MirrorPath)
	parent := filepath.Dir(folder)
	tmp := filepath.Join(parent, "."+filepath.Base(folder)+".rambar-new")
	// A write-back cut short leaves tmp behind: a partial new tree or, after
	// the exchange, the old one. The folder itself is whole either way.
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("remove leftover %s: %w", tmp, err)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return noSpace(fmt.Errorf("make %s: %w", parent, err))
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return noSpace(fmt.Errorf("make %s: %w", tmp, err))
	}
	_, statErr := os.Lstat(folder)
	exists := statErr == nil
	reuse := func(e Entry) string {
		if !exists {
			return ""
		}
		old := filepath.Join(folder, filepath.FromSlash(e.Path))
		var stt unix.Stat_t
		if unix.Lstat(old, &stt) != nil || kindOf(uint32(stt.Mode)) != KindFile {
			return ""
		}
		cur, err := entryOf(folder, scanned{rel: e.Path, id: identOf(&stt)})
		if err != nil || !sameMeta(cur, e) {
			return ""
		}
		return old
	}
	files := []string{}
	if err := buildTree(ctx, m.Entries, tmp, build{src: s.objRef, reuse: reuse}); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if syncEachFile {
		for _, e := range m.Entries {
			if e.Kind == KindFile {
				files = append(files, filepath.Join(tmp, filepath.FromSlash(e.Path)))
			}
		}
	}
	if err := flushTree(tmp, files); err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if exists {
		if err := exchange(tmp, folder); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	} else if err := os.Rename(tmp, folder); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("rename %s: %w", folder, err)
	}
	if err := atomicfile.SyncDir(parent); err != nil {
		return err
	}
	if err := os.RemoveAll(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove old tree %s: %w", tmp, err)
	}
	return nil
}
