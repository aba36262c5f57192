package tray

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"rambar/ramdisk"
)

func writeFile(path string, n int) error { return os.WriteFile(path, make([]byte, n), 0o600) }

// fakeDisks is the use-case layer for controller tests: the hooks a test
// sets, the in-memory engine for the rest.
type fakeDisks struct {
	eng        ramdisk.Engine
	save       func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) error
	reclaim    func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (ramdisk.Size, error)
	mount      func(ctx context.Context, p ramdisk.Preset, progress ProgressFunc) (ramdisk.Volume, error)
	unsaved    func(v ramdisk.Volume) bool
	saveStatus func(v ramdisk.Volume) (time.Time, int)
	// incomplete says which disks' restores did not finish.
	incomplete func(v ramdisk.Volume) bool
	whose      func(v ramdisk.Volume) string
	notices    []ramdisk.Said
	// conflicts is what the last write-back of a disk left.
	conflicts func(v ramdisk.Volume) (int, string)
	// inUse is how many paths changed during a disk's last save.
	inUse func(v ramdisk.Volume) int
	// keep, when set, is Keep; plain, when set, says which disks are not
	// kept (Kept is true for every disk otherwise).
	keep  func(ctx context.Context, v ramdisk.Volume, folder string) error
	plain func(v ramdisk.Volume) bool
	// inPlace is the folder a disk is mounted over.
	inPlace func(v ramdisk.Volume) string
	// created, when set, hears each Create: "NAME MODE \"FOLDER\"".
	created chan string
	// keptIn, when set, is KeptInFolder; refresh, when set, is Refresh.
	keptIn  func(v ramdisk.Volume) int
	refresh func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (int, error)
}

func (f *fakeDisks) KeptInFolder(v ramdisk.Volume) int {
	if f.keptIn == nil {
		return 0
	}
	return f.keptIn(v)
}

func (f *fakeDisks) Refresh(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (int, error) {
	if f.refresh == nil {
		return 0, errors.New("no refresh hook")
	}
	return f.refresh(ctx, v, asUnits(progress))
}

// asUnits turns a use case's progress back into done of total.
func asUnits(p ramdisk.ProgressFunc) ProgressFunc {
	return func(done, total int64) { p(ramdisk.Progress{BytesDone: done, BytesTotal: total}) }
}

func (f *fakeDisks) Create(ctx context.Context, r ramdisk.Request, contents ramdisk.ContentMode, folder string, inPlace bool) (ramdisk.Volume, error) {
	if f.created != nil {
		where := ""
		if inPlace {
			where = " in place"
		}
		f.created <- fmt.Sprintf("%s %s %q%s", r.Name, contents, folder, where)
	}
	plan, err := ramdisk.NewPlan(r, ramdisk.Facts{Caps: f.eng.Caps()})
	if err != nil {
		return ramdisk.Volume{}, err
	}
	return f.eng.Create(ctx, plan)
}

func (f *fakeDisks) MountPreset(ctx context.Context, p ramdisk.Preset, progress ramdisk.ProgressFunc) (ramdisk.Volume, error) {
	if f.mount == nil {
		return ramdisk.Volume{}, errors.New("no mount hook")
	}
	return f.mount(ctx, p, asUnits(progress))
}

func (f *fakeDisks) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	return f.eng.Eject(ctx, v, force)
}

func (f *fakeDisks) Save(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) error {
	if f.save == nil {
		return errors.New("no save hook")
	}
	return f.save(ctx, v, asUnits(progress))
}

func (f *fakeDisks) Reclaim(ctx context.Context, v ramdisk.Volume, progress ramdisk.ProgressFunc) (ramdisk.Size, error) {
	if f.reclaim == nil {
		return 0, errors.New("no reclaim hook")
	}
	return f.reclaim(ctx, v, asUnits(progress))
}

func (f *fakeDisks) Kept(v ramdisk.Volume) bool { return f.plain == nil || !f.plain(v) }

func (f *fakeDisks) Keep(ctx context.Context, v ramdisk.Volume, folder string, progress ramdisk.ProgressFunc) error {
	if f.keep == nil {
		return errors.New("no keep hook")
	}
	return f.keep(ctx, v, folder)
}

func (f *fakeDisks) Notices() []ramdisk.Said { return f.notices }

func (f *fakeDisks) InPlace(v ramdisk.Volume) string {
	if f.inPlace == nil {
		return ""
	}
	return f.inPlace(v)
}

func (f *fakeDisks) MirrorConflicts(v ramdisk.Volume) (int, string) {
	if f.conflicts == nil {
		return 0, ""
	}
	return f.conflicts(v)
}

func (f *fakeDisks) Incomplete(v ramdisk.Volume) bool { return f.incomplete != nil && f.incomplete(v) }

func (f *fakeDisks) Whose(v ramdisk.Volume) ramdisk.Said {
	if f.whose == nil {
		return ramdisk.Said{}
	}
	return ramdisk.Plain(f.whose(v))
}

func (f *fakeDisks) InUse(v ramdisk.Volume) int {
	if f.inUse == nil {
		return 0
	}
	return f.inUse(v)
}

func (f *fakeDisks) Unsaved(v ramdisk.Volume) bool { return f.unsaved != nil && f.unsaved(v) }

func (f *fakeDisks) SaveStatus(v ramdisk.Volume) (time.Time, int) {
	if f.saveStatus == nil {
		return time.Time{}, -1
	}
	return f.saveStatus(v)
}
