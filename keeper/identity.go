package keeper

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rambar/snapstore"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/internal/diskid"
	"rambar/ramdisk"
)

// A kept disk's identity is RAMBar's, not a file's (internal/diskid): the
// data folder's record of the disks it made (DATA/made/), by name, with
// the volume's identity; and the mark on the disk's root folder, an
// extended attribute naming the data folder, user and store. Neither is in
// the disk's tree, so neither is saved, written back, deleted by the user's
// tools or committed to a git repository on the disk. A disk made by an
// older RAMBar, with the marker file .rambar-id at its root, is taken on
// (recorded, marked, its file removed) the first time it is looked at.

// kindOfMode is the kind a disk kept in mode mode is recorded as.
func kindOfMode(m ramdisk.ContentMode) string {
	if m == ramdisk.Mirror {
		return diskid.KindMirror
	}
	return diskid.KindKept
}

func (k *Keeper) registry() diskid.Registry { return diskid.NewRegistry(k.Data) }

// Holds reports whether the mounted disk v is the one st keeps: the data
// folder's record of v's name is of this very volume and this store, or
// (the record lost) the disk carries this data folder's mark for this
// store, written for this volume. A disk made by an older RAMBar, known
// only by its marker file, is taken on here. A disk made without --keep
// under a kept name, another data folder's disk, a hand-made one and one
// carrying a mark copied from another disk are not held.
func (k *Keeper) Holds(v ramdisk.Volume, st State) bool {
	if st.ID == "" || k.Data == "" {
		return false
	}
	rec, ok := k.registry().Get(v.Name)
	if ok && rec.Matches(v.Identity, v.MountPoint) {
		return rec.ID == st.ID
	}
	if m, err := diskid.ReadMark(v.MountPoint); err == nil && m.For(v.MountPoint) {
		if m.Data != k.Data || m.ID != st.ID || m.Name != v.Name {
			return false
		}
		_, err := k.adopt(v, st) // the record was lost: the mark puts it back
		return err == nil
	}
	if !ok && legacyMarker(v.MountPoint, snapstore.MaxSmall) == st.ID {
		// An older RAMBar's disk: taken on. Only while the name has no
		// record: this RAMBar records every disk it makes, so a marker file
		// under a recorded name was copied there.
		_, err := k.adopt(v, st)
		return err == nil
	}
	return false
}

// Known returns this data folder's record of the mounted disk v when it
// is of this very volume: a disk this data folder made (kept or not).
func (k *Keeper) Known(v ramdisk.Volume) (diskid.Record, bool) {
	if k.Data == "" {
		return diskid.Record{}, false
	}
	if st, err := k.State(v.Name); err == nil {
		k.Holds(v, st) // takes on an older RAMBar's kept disk
	}
	rec, ok := k.registry().Get(v.Name)
	if ok && rec.Matches(v.Identity, v.MountPoint) {
		return rec, true
	}
	// The record lost: this data folder's own mark, written for this very
	// disk under this name, puts it back.
	m, err := diskid.ReadMark(v.MountPoint)
	if err != nil || !m.For(v.MountPoint) || m.Data != k.Data || m.Name != v.Name || m.ID != "" {
		return diskid.Record{}, false
	}
	if err := k.note(v, m.Kind, ""); err != nil {
		return diskid.Record{}, false
	}
	return k.registry().Get(v.Name)
}

// Note records the mounted disk v as made by this data folder, of kind
// kind (diskid.KindPlain, KindTry; a kept disk's kind and id come from its
// state through Load), and marks it. A file system without extended
// attributes gets the record alone.
func (k *Keeper) Note(v ramdisk.Volume, kind string) error {
	return k.note(v, kind, "")
}

// Unnote forgets the record of v once it is ejected (a record of a disk
// made again under that name since is left).
func (k *Keeper) Unnote(v ramdisk.Volume, local string) error {
	return k.registry().Drop(v.Name, local)
}

// Adopt records and marks the mounted disk v as the one name's store
// keeps (a disk filled again from a reclaim's staging copy).
func (k *Keeper) Adopt(v ramdisk.Volume) error {
	st, err := k.State(v.Name)
	if err != nil {
		return err
	}
	return k.Mark(v, st)
}

// adopt records and marks v as st's disk. remarked is set when the disk
// was this store's already (recorded for this volume) and its mark was
// missing or not its own: the user is told it was put back.
func (k *Keeper) adopt(v ramdisk.Volume, st State) (remarked bool, err error) {
	rec, had := k.registry().Get(v.Name)
	known := had && rec.ID == st.ID && rec.Matches(v.Identity, v.MountPoint)
	m, merr := diskid.ReadMark(v.MountPoint)
	marked := merr == nil && m.For(v.MountPoint) && m.Data == k.Data && m.ID == st.ID && m.Name == v.Name
	if err := k.note(v, kindOfMode(st.Mode), st.ID); err != nil {
		return false, err
	}
	if !known || marked {
		return false, nil
	}
	now, err := diskid.ReadMark(v.MountPoint)
	return err == nil && now.For(v.MountPoint), nil
}

// note records and marks v; a legacy marker file is removed once the
// record is written.
func (k *Keeper) note(v ramdisk.Volume, kind, id string) error {
	local, err := diskid.Of(v.MountPoint)
	if err != nil {
		return err
	}
	rec := diskid.Record{Name: v.Name, Volume: diskid.For(v.Identity, v.MountPoint), Local: local,
		MountPoint: v.MountPoint, Kind: kind, ID: id}
	old, had := k.registry().Get(v.Name)
	if had && old.Local == local {
		rec.Made = old.Made
	}
	if !had || old != rec {
		if err := k.registry().Put(rec); err != nil {
			return tree.NoSpace(err)
		}
	}
	mk, err := diskid.NewMark(v.MountPoint, k.Data, v.Name, kind, id)
	if err != nil {
		return err
	}
	cur, err := diskid.ReadMark(v.MountPoint)
	if !k.foreign(v) && (err != nil || cur != mk) { // never taken from its maker
		// Best effort: where the mark cannot be written (no attributes on
		// this file system, a top folder not this user's, a disk too full
		// for one more attribute) the record knows the disk, and other
		// data folders take it for one they do not know (and refuse it).
		diskid.WriteMark(v.MountPoint, mk)
	}
	removeLegacyMarker(v.MountPoint)
	return nil
}

// foreign reports whether v carries the mark of another data folder,
// written for v (not a copy): the disk is that RAMBar's.
func (k *Keeper) foreign(v ramdisk.Volume) bool {
	m, err := diskid.ReadMark(v.MountPoint)
	return err == nil && m.For(v.MountPoint) && m.Data != k.Data
}

// notHeldErr says why v is not the disk st keeps, and whose it is.
func (k *Keeper) notHeldErr(v ramdisk.Volume, st State) error {
	return fmt.Errorf("%w: %s %s; saving it would replace the saved copy in %s (use --force to save anyway)",
		ErrRefused, v.Name, k.Whose(v), st.Backing)
}

// Whose says, in words, what RAMBar knows of the mounted disk v from this
// data folder: "is not a disk this RAMBar knows …", "carries the mark of
// another RAMBar: the data folder … of user … (uid …)", "was made without
// --keep", after the disk's name, in English and as made for the user's
// language. It is meant for a disk that is not held (Holds) or not known
// (Known).
func (k *Keeper) Whose(v ramdisk.Volume) ramdisk.Said {
	m, merr := diskid.ReadMark(v.MountPoint)
	switch {
	case merr == nil && m.For(v.MountPoint) && m.Data != k.Data:
		return ramdisk.Sayf("is another RAMBar's disk: it was made with %s", owner(m))
	case merr == nil && m.For(v.MountPoint) && m.Name != v.Name:
		return ramdisk.Sayf("is the disk this RAMBar made as %q", m.Name)
	case merr == nil && m.For(v.MountPoint) && m.ID == "":
		return ramdisk.Sayf("was made without keeping its contents (no --keep or --mirror)")
	case merr == nil && !m.For(v.MountPoint):
		return ramdisk.Sayf("carries a RAMBar mark copied from another disk (%s), which is not trusted, and is not in this data folder's records (%s)",
			owner(m), k.registry().Dir)
	}
	if rec, ok := k.registry().Get(v.Name); ok && rec.Matches(v.Identity, v.MountPoint) && rec.ID == "" {
		return ramdisk.Sayf("was made without keeping its contents (no --keep or --mirror)")
	}
	if merr != nil && !errors.Is(merr, diskid.ErrNoMark) {
		return ramdisk.Sayf("is not a disk this RAMBar knows (%v)", merr)
	}
	return ramdisk.Sayf("is not a disk this RAMBar knows: not in this data folder's records (%s), and it carries no RAMBar mark naming its maker",
		k.registry().Dir)
}

// owner is m.Owner, who made the disk, as said in the user's language.
func owner(m diskid.Mark) ramdisk.Said {
	if m.User == "" {
		return ramdisk.Sayf("the data folder %s of user uid %s", m.Data, strconv.Itoa(m.UID))
	}
	return ramdisk.Sayf("the data folder %s of user %s (uid %s)", m.Data, m.User, strconv.Itoa(m.UID))
}

// legacyMarker is the id in the marker file an older RAMBar wrote at a
// kept disk's root (MarkerName), "" when there is none or it is longer
// than max bytes.
func legacyMarker(mp string, max int64) string {
	b, err := snapstore.ReadBounded(filepath.Join(mp, tree.MarkerName), max)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// removeLegacyMarker removes an older RAMBar's marker file from a disk's
// root, once the record and the mark know the disk: a regular file only,
// never through a link.
func removeLegacyMarker(mp string) {
	p := filepath.Join(mp, tree.MarkerName)
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
		unix.Unlink(p)
	}
}

// Mark records and marks v as st's disk again. disks calls it for a disk
// it knows by other means, a disk in place (its record, and the disk
// mounted over its folder), whose record or mark went missing: without it
// the disk would not be saved or written back.
func (k *Keeper) Mark(v ramdisk.Volume, st State) error {
	_, err := k.adopt(v, st)
	return err
}
