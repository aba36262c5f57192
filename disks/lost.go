package disks

import (
	"context"
	"time"

	"rambar/internal/diskid"
	"rambar/ramdisk"
)

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

// Lost is Service.Lost, for the menu's "is gone" notice.
func (m *Menu) Lost(ctx context.Context, v ramdisk.Volume) bool { return m.S.Lost(ctx, v) }
