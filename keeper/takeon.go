package keeper

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"rambar/i18n"
	"rambar/mirrorfolder"

	"rambar/ramdisk"
)

// ErrAlreadyKept: the disk's contents are kept or mirrored already.
var ErrAlreadyKept = i18n.New("its contents are kept already")

// ErrFolderNotEmpty: a disk becomes the mirror of an empty folder only (its
// first write-back would otherwise mix the disk's files into the folder's).
// It is an ErrBadFolder.
var ErrFolderNotEmpty = fmt.Errorf("%w: it is not empty", mirrorfolder.ErrBadFolder)

// TakeOn starts keeping the mounted disk v, made without --keep or
// --mirror, as o says, without ejecting it: the store is set up, a Mirror
// disk's folder is recorded as loaded with nothing (so its first save
// writes the whole disk into it), and the disk is recorded and marked as
// the store's. The caller saves it next. What is refused changes nothing:
// a disk kept already (ErrAlreadyKept); a name with saved contents of an
// earlier disk, unless force (ErrRefused: this disk's contents would become
// their newest snapshot); a mirror folder that is not empty or not a
// folder RAMBar may mirror.
func (k *Keeper) TakeOn(v ramdisk.Volume, o Options, force bool) (State, error) {
	before, err := k.State(v.Name)
	switch {
	case err == nil && k.Holds(v, before):
		how := "kept"
		if before.Mode == ramdisk.Mirror {
			how = "mirrored to " + before.MirrorPath
		}
		return State{}, fmt.Errorf("%s: %w (%s)", v.Name, ErrAlreadyKept, how)
	case err == nil && !force && k.hasSnapshots(before):
		return State{}, i18n.Errorf("%w: the name %s has saved contents of an earlier disk (%s); keeping this disk makes "+
			"its contents their newest snapshot: add --force to do that (the older snapshots stay restorable), or delete "+
			"them first with 'rambar forget %s'", ErrRefused, v.Name, lastWords(before), v.Name)
	case err != nil && !errors.Is(err, ErrNotKept):
		return State{}, err
	}
	existed := err == nil
	if o.Mode == ramdisk.Mirror {
		o.MountPoint = v.MountPoint
		if err := mirrorfolder.Check(o.MirrorPath, k.folderRules(o.CreateFolder, v.MountPoint)); err != nil {
			return State{}, err
		}
		if err := folderEmpty(o.MirrorPath); err != nil {
			return State{}, err
		}
	}
	st, err := k.Setup(v.Name, o)
	if err != nil {
		return State{}, err
	}
	undo := func() {
		if st.Mode == ramdisk.Mirror {
			k.Release(v.Name)
		}
		if existed {
			k.writeState(before)
		} else {
			k.Forget(v.Name)
		}
	}
	if st.Mode == ramdisk.Mirror {
		if err := k.claim(st, v); err != nil {
			undo()
			return State{}, err
		}
		if err := emptyLoadRecord(st); err != nil {
			undo()
			return State{}, fmt.Errorf("keep %s: record its mirror folder: %w", v.Name, err)
		}
	}
	if _, err := k.adopt(v, st); err != nil {
		undo()
		return State{}, fmt.Errorf("keep %s: %w", v.Name, err)
	}
	return st, nil
}

// hasSnapshots reports whether st's store holds a snapshot (a keep killed
// before its first save left none: it is taken on again without --force).
func (k *Keeper) hasSnapshots(st State) bool {
	snaps, err := k.store(st).Snapshots()
	return err != nil || len(snaps) > 0
}

// lastWords says when a store was last saved, for a refusal.
func lastWords(st State) string {
	if st.LastSave.IsZero() {
		return "never saved"
	}
	return "last saved " + st.LastSave.Local().Format("2006-01-02 15:04")
}

// folderEmpty refuses a folder that holds anything (a missing one is
// empty: Setup makes it when asked).
func folderEmpty(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mirror folder %s: open: %w", path, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if err != nil && err != io.EOF {
		return fmt.Errorf("mirror folder %s: list: %w", path, err)
	}
	if len(names) > 0 {
		return fmt.Errorf("mirror folder %s: %w; a disk made without --mirror becomes the mirror of an empty folder only "+
			"(to mirror a folder with files, eject the disk and make it again with --mirror)", path, ErrFolderNotEmpty)
	}
	return nil
}
