package disks

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"rambar/cache"
	"rambar/i18n"
	"rambar/internal/record"
	"rambar/keeper"
	"rambar/ramdisk"
	"rambar/settingsfile"
)

// Service runs the use cases against one engine and RAMBar's files.
type Service struct {
	// Engine makes, lists and ejects disks.
	Engine ramdisk.Engine
	// Paths are the settings file (presets) and the data folder (kept
	// contents, reclaim staging, the per-disk locks).
	Paths ramdisk.Paths
	// NewKeeper makes the contents keeper for the data folder; nil is
	// keeper.NewKeeper. Tests give one that takes plain folders for disks.
	NewKeeper func(data string) *keeper.Keeper
	// CopyFile, when set, writes each file a restore puts on a disk (macOS:
	// ditto --hfsCompression, so restored files sit compressed).
	CopyFile keeper.CopyFunc
	// LockWait bounds how long an operation waits while another RAMBar works
	// on the same disk; 0 is DefaultLockWait. The context may end it sooner.
	LockWait time.Duration
	// Warn, when set, hears what the user should know once about RAMBar's
	// files: the data folder readable by other users (ExposedData).
	Warn func(string)
	// dataChecked is set once the data folder was looked at for Warn.
	dataChecked atomic.Bool
	// follow are the disks followed by their change feeds (Autosave).
	follow followers

	// reclaimed, when set, hears each step of a reclaim once it is
	// recorded (tests kill the process there).
	reclaimed keeper.ReclaimJournal

	// cacheStep, when set, is told each step of a cache switched on or
	// off (tests kill the process there).
	cacheStep func(step string)

	// inPlaceStep, when set, is told each step of a disk in place as its
	// record is written (tests kill the process there).
	inPlaceStep func(step string)
}

// ErrNoData means there is no data folder (HOME is not set), so nothing is kept.
var ErrNoData = cache.ErrNoData

// Keeper returns the contents keeper, or ErrNoData.
func (s *Service) Keeper() (*keeper.Keeper, error) {
	if s.Paths.Data == "" {
		return nil, ErrNoData
	}
	s.warnExposed()
	newKeeper := s.NewKeeper
	if newKeeper == nil {
		newKeeper = keeper.NewKeeper
	}
	k := newKeeper(s.Paths.Data)
	if s.CopyFile != nil {
		k.CopyFile = s.CopyFile
	}
	if s.Engine != nil {
		k.Through = s.through
		// A mirror folder inside a RAM disk is refused.
		k.RAMDisks = func() []string {
			vs, _ := s.Engine.List(context.Background())
			out := make([]string, len(vs))
			for i, v := range vs {
				out[i] = v.MountPoint
			}
			return out
		}
	}
	return k, nil
}

// keptState is the keeper and what it keeps of disk name (keeper.State):
// ErrNoData, keeper.ErrNotKept or why it cannot be read.
func (s *Service) keptState(name string) (*keeper.Keeper, keeper.State, error) {
	k, err := s.Keeper()
	if err != nil {
		return nil, keeper.State{}, err
	}
	st, err := k.State(name)
	return k, st, err
}

// Store is the settings file, or an error when there is no place for it.
func (s *Service) Store() (settingsfile.Store, error) {
	if s.Paths.Settings == "" {
		return settingsfile.Store{}, errors.New("no settings location: HOME is not set")
	}
	return settingsfile.Store{Path: s.Paths.Settings}, nil
}

// settings reads the settings file (Store).
func (s *Service) settings() (ramdisk.Settings, error) {
	st, err := s.Store()
	if err != nil {
		return ramdisk.Settings{}, err
	}
	return st.Load()
}

// kind is the record kind kept in the data folder's folder dir, each
// record read up to limit bytes (0: record.MaxSize); with no data folder
// it keeps nothing.
func (s *Service) kind(dir string, limit int64) record.Kind {
	k := record.Kind{Names: record.Platform, Limit: limit}
	if s.Paths.Data != "" {
		k.Dir = filepath.Join(s.Paths.Data, dir)
	}
	return k
}

// SameName is the engine's rule for names (ramdisk.Caps.SameName: the
// engines take it from internal/record's one rule); without an engine,
// this system's (record.Platform).
func (s *Service) SameName(a, b string) bool {
	if s.Engine == nil {
		return record.Platform.Same(a, b)
	}
	return s.Engine.Caps().SameName(a, b)
}

// Disk is a mounted volume with its measurement.
type Disk struct {
	ramdisk.Volume
	Usage    ramdisk.Usage
	UsageErr error
}

// Held is the memory the disk holds (ramdisk.HeldMemory).
func (d Disk) Held() ramdisk.Size { return ramdisk.HeldMemory(d.Volume, d.Usage, d.UsageErr == nil) }

// List lists the mounted RAM disks and measures each.
func (s *Service) List(ctx context.Context) ([]Disk, error) {
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Disk, len(vs))
	for i, v := range vs {
		out[i].Volume = v
		out[i].Usage, out[i].UsageErr = s.Engine.Usage(ctx, v)
	}
	return out, nil
}

// Find returns the mounted disk with that name (exact match first, then,
// where names differ only in letter case name one disk, as on macOS, one
// that matches but for case), or mounted at that path (a name has no "/":
// /mnt/rambar/X, ./X), or ErrNotFound naming what is mounted.
func (s *Service) Find(ctx context.Context, name string) (ramdisk.Volume, error) {
	vs, err := s.Engine.List(ctx)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	if i := slices.IndexFunc(vs, func(v ramdisk.Volume) bool { return v.Name == name }); i >= 0 {
		return vs[i], nil
	}
	if strings.Contains(name, "/") {
		// A name never holds "/": this is a mount point (info /mnt/rambar/X),
		// made absolute and clean.
		if mp, err := filepath.Abs(name); err == nil {
			for _, v := range vs {
				if abs, err := filepath.Abs(v.MountPoint); err == nil && abs == mp {
					return v, nil
				}
			}
			return ramdisk.Volume{}, i18n.Errorf("%s: %w (no RAM disk is mounted there)", name, ramdisk.ErrNotFound)
		}
	}
	caps := s.Engine.Caps()
	if i := slices.IndexFunc(vs, func(v ramdisk.Volume) bool { return caps.SameName(v.Name, name) }); i >= 0 {
		return vs[i], nil
	}
	if k, err := s.Keeper(); err == nil {
		if st := k.StagingFor(name); st != "" {
			return ramdisk.Volume{}, fmt.Errorf("%q: %w; a reclaim of it was stopped (its staging copy is %s): 'rambar reclaim %s --resume' finishes it",
				name, ramdisk.ErrNotFound, st, quoteArg(name))
		}
	}
	if len(vs) == 0 {
		return ramdisk.Volume{}, i18n.Errorf("%q: %w (none is mounted)", name, ramdisk.ErrNotFound)
	}
	names := make([]string, len(vs))
	for i, v := range vs {
		names[i] = v.Name
	}
	return ramdisk.Volume{}, i18n.Errorf("%q: %w (mounted: %s)", name, ramdisk.ErrNotFound, strings.Join(names, ", "))
}

// Facts gathers what a plan needs now: memory, the mounted disks, the memory
// they hold and every name mounted under the mount root.
func (s *Service) Facts(ctx context.Context) (ramdisk.Facts, error) {
	m, err := s.Engine.Memory(ctx)
	if err != nil {
		return ramdisk.Facts{Caps: s.Engine.Caps()}, fmt.Errorf("read memory: %w", err)
	}
	ds, err := s.List(ctx)
	if err != nil {
		return ramdisk.Facts{Caps: s.Engine.Caps(), Memory: m}, err
	}
	var held ramdisk.Size
	vs := make([]ramdisk.Volume, len(ds))
	for i, d := range ds {
		vs[i] = d.Volume
		held += d.Held()
	}
	return ramdisk.NewFacts(s.Engine.Caps(), m, vs, held), nil
}

// mirrorProgress is the keeper's progress told to the front ends as disk
// name's (one Progress type: ramdisk.Progress).
func mirrorProgress(name string, fn ramdisk.ProgressFunc) keeper.ProgressFunc {
	if fn == nil {
		return nil
	}
	return func(p keeper.Progress) {
		p.Disk = name
		fn(p)
	}
}

// FindAll finds every named disk, or names every one that is not mounted
// (one missing name gets Find's own error).
func (s *Service) FindAll(ctx context.Context, names []string) ([]ramdisk.Volume, error) {
	var vs []ramdisk.Volume
	var missing []string
	var missErr error
	for _, n := range names {
		v, err := s.Find(ctx, n)
		switch {
		case errors.Is(err, ramdisk.ErrNotFound):
			missing, missErr = append(missing, strconv.Quote(n)), err
		case err != nil:
			return nil, err
		default:
			vs = append(vs, v)
		}
	}
	switch len(missing) {
	case 0:
		return vs, nil
	case 1:
		return nil, missErr
	}
	all, err := s.Engine.List(ctx)
	if err != nil {
		return nil, err
	}
	mounted := "none is mounted"
	if len(all) > 0 {
		ns := make([]string, len(all))
		for i, v := range all {
			ns[i] = v.Name
		}
		mounted = "mounted: " + strings.Join(ns, ", ")
	}
	return nil, fmt.Errorf("%s: %w (%s)", strings.Join(missing, ", "), ramdisk.ErrNotFound, mounted)
}
