package disks

import (
	"context"
	"fmt"
	"os/user"
	"strconv"
	"syscall"
	"time"

	"rambar/i18n"
	"rambar/internal/diskid"
	"rambar/keeper"
	"rambar/ramdisk"
)

// Whose disk is it. This data folder knows the disks it made by their
// volume (internal/diskid: its record of each, and the mark on the disk's
// root naming the data folder and user), never by a file in the disk's
// tree. Eject, `eject --all`, bench and the menu's Eject All act on the
// disks this data folder made; a disk another data folder made (another
// user's, root's under sudo, or the same user's with another RAMBAR_HOME),
// or one nothing tells the maker of, is never ejected without --force, and
// the refusal says whose it is.

// ErrNotOurs marks a disk this data folder did not make: another RAMBar's
// (the message names its data folder and user) or one it does not know.
// It is also keeper.ErrRefused: Force overrides.
var ErrNotOurs = i18n.New("not this RAMBar's disk")

type notOursError struct{ msg string }

func (e notOursError) Error() string { return e.msg }
func (e notOursError) Is(target error) bool {
	return target == ErrNotOurs || target == keeper.ErrRefused
}

// Mine reports whether this data folder made the mounted disk v (it is in
// its records as this very volume, or its restore from here is under way).
func (s *Service) Mine(v ramdisk.Volume) bool {
	k, err := s.Keeper()
	if err != nil {
		return false
	}
	_, known := k.Known(v)
	return known || s.Incomplete(v)
}

// Whose says, for a disk that is not Mine, what is known of its maker,
// after its name ("is another RAMBar's disk: …"); nothing (no Text) for a
// disk that is.
func (s *Service) Whose(v ramdisk.Volume) ramdisk.Said {
	if s.Mine(v) {
		return ramdisk.Said{}
	}
	if user := otherOwner(v.MountPoint); user != "" {
		return ramdisk.OtherUserWhose(user)
	}
	k, err := s.Keeper()
	if err != nil {
		return ramdisk.Sayf("is not a disk this RAMBar knows (no data folder)")
	}
	return k.Whose(v)
}

// refuseForeign is the refusal to eject a disk that is not Mine.
func (s *Service) refuseForeign(v ramdisk.Volume) error {
	whose := s.Whose(v)
	if whose.Text == "" {
		return nil
	}
	return notOursError{fmt.Sprintf("%s %s; ejecting it here would not save it first: eject it as its maker, or with --force to eject it anyway (what it holds that is not saved is lost)",
		v.Name, whose)}
}

// noteMade records and marks a disk this data folder just made: a kept or
// mirrored one as its store's (kept: its name has a store and its contents
// are kept), any other as kind. What fails is returned for a note: the disk
// is made, and only eject --force would then eject it.
func (s *Service) noteMade(v ramdisk.Volume, kept bool, kind string) error {
	k, err := s.Keeper()
	if err != nil {
		return nil // no data folder: nothing can be recorded
	}
	if kept {
		err = k.Adopt(v)
	} else {
		err = k.Note(v, kind)
	}
	if err != nil {
		return fmt.Errorf("%s was made, but noting it as this RAMBar's failed (eject it with --force): %w", v.Name, err)
	}
	return nil
}

// localOf is v's identity as diskid.Of tells it ("" when it cannot).
func localOf(v ramdisk.Volume) string {
	id, _ := diskid.Of(v.MountPoint)
	return id
}

// forgetMade drops the record of v, once ejected; local is its identity
// read before the eject (a record of another disk made since is kept).
func (s *Service) forgetMade(v ramdisk.Volume, local string) {
	if k, err := s.Keeper(); err == nil && local != "" {
		k.Unnote(v, local)
	}
}

// lostWait bounds how long Lost waits for an eject under way to finish.
const lostWait = 5 * time.Second

// Lost reports whether disk v, which was mounted and is no more, was lost:
// unmounted outside RAMBar or gone with its helper, rather than ejected by
// a RAMBar of this data folder (the CLI, try, the self-test, the agent or
// the menu-bar app: each drops the disk's record once it is ejected). An
// eject under way holds the disk's lock until its record is dropped, so
// Lost waits for the lock first (at most lostWait). A disk of that name
// mounted again since (a reclaim, a create) is not lost; nor is one this
// data folder has no record of (its maker speaks of it, if any).
func (s *Service) Lost(ctx context.Context, v ramdisk.Volume) bool {
	if s.Paths.Data == "" {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, lostWait)
	defer cancel()
	if release, err := s.lock(ctx, v.Name, "telling whether it was ejected"); err == nil {
		release()
	}
	if s.Engine != nil {
		if now, err := s.Find(ctx, v.Name); err == nil && now.Name == v.Name {
			return false // back: made again under its name
		}
	}
	rec, ok := diskid.NewRegistry(s.Paths.Data).Get(v.Name)
	return ok && rec.MountPoint == v.MountPoint && !rec.Live()
}

// Foreign is a mounted disk this data folder did not make, with what is
// known of its maker (Whose).
type Foreign struct {
	Volume ramdisk.Volume
	Whose  ramdisk.Said
}

// Split divides vols into the disks this data folder made, the only ones
// `eject --all` ejects and `bench` measures unnamed, and the others, left
// alone with what is known of their maker. The menu's Eject All follows
// the same rule through each disk's Whose.
func (s *Service) Split(vols []ramdisk.Volume) (mine []ramdisk.Volume, others []Foreign) {
	for _, v := range vols {
		if whose := s.Whose(v); whose.Text != "" {
			others = append(others, Foreign{v, whose})
			continue
		}
		mine = append(mine, v)
	}
	return mine, others
}

// otherOwner names the user who owns a disk's top folder when that is not
// the user RAMBar works for (under sudo, the one sudo names): the disk is
// theirs ("" when it is this user's, or cannot be told).
func otherOwner(mp string) string {
	var st syscall.Stat_t
	if mp == "" || syscall.Lstat(mp, &st) != nil {
		return ""
	}
	if int(st.Uid) == ramdisk.Invoking().UID { // the one rule: under sudo or pkexec, that user
		return ""
	}
	if u, err := user.LookupId(strconv.FormatUint(uint64(st.Uid), 10)); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + strconv.FormatUint(uint64(st.Uid), 10)
}
