package disks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"rambar/i18n"
	"rambar/internal/diskid"
	"rambar/internal/record"
	"rambar/ramdisk"
)

// tryPrefix starts the name of the temporary disk `rambar try` makes; the
// trying process's id follows. No space, so a shell user need not quote
// its mount point; oldTryPrefix is what RAMBar named them before, still
// reserved and still cleaned up.
const (
	tryPrefix    = "RAMBar-Try-"
	oldTryPrefix = "RAMBar Try "
)

// TryDiskName is the name of the temporary disk process pid makes for `try`.
func TryDiskName(pid int) string { return tryPrefix + strconv.Itoa(pid) }

// checkNotTryName refuses a disk name of try's form, "RAMBar-Try-N" (or
// the older "RAMBar Try N") in any case: it is reserved for try's
// temporary disks, which a later try cleans up.
func checkNotTryName(name string) error {
	for _, prefix := range []string{tryPrefix, oldTryPrefix} {
		if len(name) > len(prefix) && strings.EqualFold(name[:len(prefix)], prefix) && strings.Trim(name[len(prefix):], "0123456789") == "" {
			return i18n.Errorf("%w %q: names of the form %q are reserved for the temporary disks of 'rambar try'", ramdisk.ErrName, name, tryPrefix+"N")
		}
	}
	return nil
}

// tryDiskOwner returns the process id in a temporary try disk's name.
func tryDiskOwner(name string) (int, bool) {
	s, ok := strings.CutPrefix(name, tryPrefix)
	if !ok {
		if s, ok = strings.CutPrefix(name, oldTryPrefix); !ok {
			return 0, false
		}
	}
	pid, err := strconv.Atoi(s)
	return pid, err == nil && pid > 0 && strconv.Itoa(pid) == s
}

// LeftoverKind is what a leftover is.
type LeftoverKind string

// Kinds of leftovers.
const (
	// LeftTryDisk: the temporary disk of a `try` that was killed.
	LeftTryDisk LeftoverKind = "try-disk"
	// LeftIncomplete: a disk whose restore did not finish.
	LeftIncomplete LeftoverKind = "restore-incomplete"
	// LeftTryLog: the log of a `try` that was killed.
	LeftTryLog LeftoverKind = "try-log"
	// LeftReclaim: a reclaim's staging copy (the disk's contents while it
	// was made again) that was not removed.
	LeftReclaim LeftoverKind = "reclaim-staging"
	// LeftZRAM: a zram device a create that was killed added and nothing
	// mounted (Linux).
	LeftZRAM LeftoverKind = "zram-device"
	// LeftInPlace: a step of a disk in place that was cut short (its
	// create or eject), or a disk in place that is gone; its next create,
	// save or eject settles it.
	LeftInPlace LeftoverKind = "in-place"
	// LeftCache: a cache's switch on or off that was cut short; the next
	// cache command, 'rambar up' or the menu finishes or undoes it.
	LeftCache LeftoverKind = "cache-step"
	// LeftTemps: the temporary names a stopped write-back (in the Mirror
	// folder) or refresh (on the disk) made; the next save or refresh of
	// the disk removes them.
	LeftTemps LeftoverKind = "temporary-names"
)

// leftoverDevicer is an engine that can name the devices killed creates
// left (the Linux engine's zram devices).
type leftoverDevicer interface {
	LeftoverDevices(ctx context.Context) ([]string, error)
}

// Leftover is something RAMBar made and a killed RAMBar left behind.
type Leftover struct {
	Kind LeftoverKind `json:"kind"`
	Name string       `json:"name"` // the disk's name
	Path string       `json:"path"` // the mount point or folder
	// Step is the step a journal says was cut short, when one does.
	Step string `json:"step,omitempty"`
	// What is the next step, in words (English).
	Advice string `json:"advice"`
	// Format and Args are what Advice was made from, so a front end can
	// say it in the user's language (the format is the catalog's key).
	Format string `json:"-"`
	Args   []any  `json:"-"`
}

// Advised is l with its advice made from format (English, the catalog's
// key) and its arguments.
func (l Leftover) Advised(format string, args ...any) Leftover {
	l.Advice, l.Format, l.Args = fmt.Sprintf(format, args...), format, args
	return l
}

// Leftovers finds what RAMBar processes that were killed (kill -9, a crash)
// left behind: temporary try disks whose process is gone, disks whose
// restore did not finish, reclaim staging copies, zram devices of creates
// that were killed, and records of disks in place left mid-step or whose
// disk is gone.
func (s *Service) Leftovers(ctx context.Context) ([]Leftover, error) {
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []Leftover
	for _, v := range vs {
		if s.staleTryDisk(v) {
			out = append(out, Leftover{Kind: LeftTryDisk, Name: v.Name, Path: v.MountPoint}.
				Advised("the temporary disk of a 'rambar try' that was stopped; the next try ejects it, or: rambar eject %q", v.Name))
		}
		if s.Incomplete(v) {
			out = append(out, Leftover{Kind: LeftIncomplete, Name: v.Name, Path: v.MountPoint}.
				Advised("its restore did not finish, its saved copy is kept: rambar restore %q --force finishes it, rambar eject %q --force drops it", v.Name, v.Name))
		}
	}
	for _, p := range staleTryLogs(os.TempDir()) {
		out = append(out, Leftover{Kind: LeftTryLog, Path: p}.Advised("the log of a 'rambar try' that was stopped; the next try removes it"))
	}
	out = slices.Concat(out, s.StoppedReclaims(), s.unsettled(vs), s.pendingSteps(vs), s.leftMounts(ctx, vs))
	if ld, ok := s.Engine.(leftoverDevicer); ok {
		devs, _ := ld.LeftoverDevices(ctx) // unreadable records: nothing to name
		for _, d := range devs {
			out = append(out, Leftover{Kind: LeftZRAM, Path: d}.
				Advised("a zram device of a 'rambar create --fs zram' that was stopped, holding no disk; the next zram create frees it"))
		}
	}
	return out, nil
}

// pendingSteps lists the other steps the journals hold open
// (internal/record): a cache's switch cut short, the temporary names of a
// stopped write-back or refresh, and the fill record of a disk that is gone.
func (s *Service) pendingSteps(vs []ramdisk.Volume) []Leftover {
	var out []Leftover
	for _, p := range s.Caches().Pending() {
		out = append(out, Leftover{Kind: LeftCache, Name: p.Key, Path: p.Path, Step: p.Step}.
			Advised("switching a cache onto or off %s was cut short (%s); 'rambar up', the menu or the next 'rambar cache' command finishes or undoes it", p.Key, p.Step))
	}
	k, err := s.Keeper()
	if err != nil {
		return out
	}
	for _, p := range k.PendingTemps() {
		out = append(out, Leftover{Kind: LeftTemps, Name: p.Key, Path: p.Path, Step: p.Step}.
			Advised("a %s of %s was stopped and left temporary names (.rambar-…) it lists here; the next save or refresh of %s removes them", p.Step, p.Key, p.Key))
	}
	for _, p := range k.PendingFills() {
		if !slices.ContainsFunc(vs, func(v ramdisk.Volume) bool { return s.SameName(v.Name, p.Key) }) {
			out = append(out, Leftover{Kind: LeftIncomplete, Name: p.Key, Path: p.Path, Step: p.Step}.
				Advised("the record of a restore or load of %s that did not finish, whose disk is gone; its saved copy is whole, and the next create of %s replaces the record", p.Key, p.Key))
		}
	}
	return out
}

// staleTryDisk reports whether v is the temporary disk of a `try` whose
// process is gone: named as try names its disks, and known as a try disk
// (this data folder's record, or a mark written for it, says so). A disk
// that is only named so (made by hand, by an older RAMBar, a kept or
// mirrored one) is not.
func (s *Service) staleTryDisk(v ramdisk.Volume) bool {
	pid, ok := tryDiskOwner(v.Name)
	if !ok || record.Alive(pid) {
		return false
	}
	if k, err := s.Keeper(); err == nil {
		if rec, ok := k.Known(v); ok {
			return rec.Kind == diskid.KindTry
		}
	}
	m, err := diskid.ReadMark(v.MountPoint)
	return err == nil && m.For(v.MountPoint) && m.Kind == diskid.KindTry
}

// ejectLeftTry ejects a killed try's disk and drops its record, under its
// lock as every eject (Lost waits for it).
func (s *Service) ejectLeftTry(ctx context.Context, v ramdisk.Volume) error {
	release, err := s.lock(ctx, v.Name, "ejecting")
	if err != nil {
		return fmt.Errorf("eject the leftover %s: %w", v.Name, err)
	}
	defer release()
	local := localOf(v)
	if err := s.Engine.Eject(ctx, v, true); err != nil && !errors.Is(err, ramdisk.ErrNotFound) {
		return fmt.Errorf("eject the leftover %s: %w", v.Name, err)
	}
	s.forgetMade(v, local)
	return nil
}

// CleanTryDisks ejects the temporary disks of `try` runs whose process is
// gone (a kill -9 leaves them mounted) and returns their names. Only try's
// own disks (staleTryDisk): never a kept, mirrored or unknown one.
func (s *Service) CleanTryDisks(ctx context.Context) ([]string, error) {
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return nil, err
	}
	var gone []string
	var errs []error
	for _, v := range vs {
		if s.staleTryDisk(v) {
			if err := s.ejectLeftTry(ctx, v); err != nil {
				errs = append(errs, err)
				continue
			}
			gone = append(gone, v.Name)
		}
	}
	return gone, errors.Join(errs...)
}

// TryLogPattern is the os.CreateTemp pattern of the log a `try` by process
// pid removes when it ends; the pid in it lets a later try remove the log
// of one that was killed.
func TryLogPattern(pid int) string { return ".rambar-try-" + strconv.Itoa(pid) + "-*.log" }

// staleTryLogs lists the logs in dir of tries whose process is gone.
func staleTryLogs(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), ".rambar-try-")
		pidText, _, cut := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if ok && cut && err == nil && pid > 0 && strings.HasSuffix(e.Name(), ".log") && e.Type().IsRegular() && !record.Alive(pid) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// CleanTryLogs removes from dir the logs of tries that were killed.
func CleanTryLogs(dir string) []string {
	var gone []string
	for _, p := range staleTryLogs(dir) {
		if os.Remove(p) == nil {
			gone = append(gone, p)
		}
	}
	return gone
}

// MakeTryDisk makes the temporary disk of a `try` of a folder of that many
// bytes and files: room for it twice over (the copy and what the command
// writes), at least 512 MiB; where memory is taken only from a size on
// (macOS), at least that size, which then costs nothing more. It is hidden,
// named for this process (so a later try finds it if this one is killed),
// and eject removes it even when ctx was cancelled.
func (s *Service) MakeTryDisk(ctx context.Context, bytes int64, files int) (v ramdisk.Volume, eject func() error, err error) {
	f, err := s.Facts(ctx)
	if err != nil {
		return v, nil, err
	}
	size := max(ramdisk.Size(2*bytes+int64(files)*4096)+256*ramdisk.MiB, 512*ramdisk.MiB, f.Caps.LazyThreshold)
	size = ramdisk.Size(size.MiBs()) * ramdisk.MiB // whole MiB, as ram:// and tmpfs sizes are
	plan, err := ramdisk.NewPlan(ramdisk.Request{Name: TryDiskName(os.Getpid()), Size: size, Hidden: true}, f)
	if err != nil {
		return v, nil, fmt.Errorf("temporary RAM disk: %w", err)
	}
	if v, err = s.Engine.Create(ctx, plan); err != nil {
		return v, nil, fmt.Errorf("make a temporary RAM disk (or name one with --disk): %w", err)
	}
	local := localOf(v)
	eject = func() error {
		// Under the disk's lock, as every eject: a menu that sees the disk
		// go waits for its record to be dropped (Lost), so it is no news.
		if release, err := s.lock(context.WithoutCancel(ctx), v.Name, "ejecting"); err == nil {
			defer release()
		}
		err := s.Engine.Eject(context.WithoutCancel(ctx), v, true)
		if err == nil {
			s.forgetMade(v, local)
		}
		return err
	}
	if err := s.noteMade(v, false, diskid.KindTry); err != nil {
		eject()
		return v, nil, fmt.Errorf("temporary RAM disk: %w", err)
	}
	return v, eject, nil
}
