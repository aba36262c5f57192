package selftest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rambar/disks"
	"rambar/internal/record"
	"rambar/ramdisk"
)

// namePrefix starts the name of every disk a self-test makes; the process
// id and the disk's role follow ("RAMBar Selftest 4242 small").
const namePrefix = "RAMBar Selftest "

// runPrefix starts the name of a run's own folder below the root.
const runPrefix = "run-"

// Runner runs the self-test's checks of the engine and the store for one
// process. Its disks and its private data folder are its own: nothing of
// the user's is listed as its, ejected or written.
type Runner struct {
	// Engine is the real engine of this machine.
	Engine ramdisk.Engine
	// Root is the self-test's folder (in RAMBar's data folder); this run
	// works in Root/run-PID.
	Root string
	// PID names this run's disks and folder (os.Getpid()).
	PID int
	// Logf, when set, hears what the run does, as it does it.
	Logf func(format string, args ...any)
	// Home is where mirror.inplace makes its folder ("": $HOME).
	Home string

	made []ramdisk.Volume // disks this run made and has not ejected
	// inPlaceDir is the folder mirror.inplace made under the home folder
	// and has not removed ("": none).
	inPlaceDir string
	kept       *ramdisk.Volume // the kept disk, mounted again after its round trip
}

// New returns a Runner for this process.
func New(e ramdisk.Engine, root string) *Runner {
	return &Runner{Engine: e, Root: root, PID: os.Getpid()}
}

func (r *Runner) logf(format string, args ...any) {
	if r.Logf != nil {
		r.Logf(format, args...)
	}
}

// DiskName is the name of this run's disk for role.
func (r *Runner) DiskName(role string) string { return namePrefix + strconv.Itoa(r.PID) + " " + role }

// Work is this run's own folder.
func (r *Runner) Work() string { return filepath.Join(r.Root, runPrefix+strconv.Itoa(r.PID)) }

// Paths are the private settings file and data folder of this run: the
// kept disk's store, and what the menu bar run for the native checks keeps.
func (r *Runner) Paths() ramdisk.Paths {
	return ramdisk.Paths{Settings: filepath.Join(r.Work(), "settings.plist"), Data: filepath.Join(r.Work(), "data")}
}

// Service is the use-case layer over the engine and this run's private
// data folder.
func (r *Runner) Service() *disks.Service { return &disks.Service{Engine: r.Engine, Paths: r.Paths()} }

// KeptDisk is the kept disk the round trip mounted again (nil when it
// failed), for the session guard's check.
func (r *Runner) KeptDisk() *ramdisk.Volume { return r.kept }

// disksRecord is the file in a run's folder listing the disks it makes,
// each written before the disk is made: RAMBar's own record of what a run
// may leave, so a disk of the user's that only looks like one (its name) is
// never ejected by a later run.
const disksRecord = "disks"

// newDisk notes the disk of role in this run's record, then returns its
// name.
func (r *Runner) newDisk(role string) (string, error) {
	name := r.DiskName(role)
	if err := os.MkdirAll(r.Work(), 0o700); err != nil {
		return "", fmt.Errorf("self-test: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(r.Work(), disksRecord), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("self-test: %w", err)
	}
	_, err = f.WriteString(name + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("self-test: note %s: %w", name, err)
	}
	return name, nil
}

// recorded reads the names a run folder's record lists (only names of the
// self-test's own form, for that run's process).
func recorded(folder string, pid int) map[string]bool {
	data, err := os.ReadFile(filepath.Join(folder, disksRecord))
	if err != nil {
		return nil
	}
	out := map[string]bool{}
	for _, n := range strings.Split(string(data), "\n") {
		if p, ok := owner(n); ok && p == pid {
			out[n] = true
		}
	}
	return out
}

// owner returns the process id in a self-test disk's name.
func owner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, namePrefix)
	if !ok {
		return 0, false
	}
	pidText, _, _ := strings.Cut(rest, " ")
	pid, err := strconv.Atoi(pidText)
	return pid, err == nil && pid > 0 && strconv.Itoa(pid) == pidText
}

// Leftovers lists what self-tests that were killed left behind: the run
// folders below root of processes that are gone, and the disks their
// records list that are still mounted.
func Leftovers(ctx context.Context, e ramdisk.Engine, root string) (vols []ramdisk.Volume, folders []string, err error) {
	ents, err := os.ReadDir(root)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("self-test leftovers: %w", err)
	}
	ours := map[string]bool{}
	for _, d := range ents {
		pidText, ok := strings.CutPrefix(d.Name(), runPrefix)
		pid, err := strconv.Atoi(pidText)
		if ok && err == nil && pid > 0 && d.IsDir() && !record.Alive(pid) {
			f := filepath.Join(root, d.Name())
			folders = append(folders, f)
			for n := range recorded(f, pid) {
				ours[n] = true
			}
		}
	}
	if len(ours) == 0 {
		return nil, folders, nil
	}
	vs, err := e.List(ctx)
	if err != nil {
		return nil, folders, fmt.Errorf("self-test leftovers: %w", err)
	}
	for _, v := range vs {
		if ours[v.Name] {
			vols = append(vols, v)
		}
	}
	return vols, folders, nil
}

// CleanLeftovers ejects (with force: a killed run's busy check may have left
// a holder) and removes what killed self-tests left: the first check of a
// run.
func (r *Runner) CleanLeftovers(ctx context.Context) Check {
	const name = "leftovers"
	vols, folders, err := Leftovers(ctx, r.Engine, r.Root)
	if err != nil {
		return Failf(name, "%v", err)
	}
	var errs []error
	for _, v := range vols {
		r.logf("ejecting %s, left by a self-test that was stopped", v.Name)
		if err := r.Engine.Eject(ctx, v, true); err != nil && !errors.Is(err, ramdisk.ErrNotFound) {
			errs = append(errs, fmt.Errorf("eject %s: %w", v.Name, err))
		}
	}
	if len(errs) == 0 { // a folder goes once its disks are gone: its record names them
		for _, f := range folders {
			if err := os.RemoveAll(f); err != nil {
				errs = append(errs, err)
			}
		}
	}
	c := Passf(name, "nothing left by an earlier self-test")
	if len(vols)+len(folders) > 0 {
		c = Passf(name, "cleaned what a stopped self-test left: %s, %s", counted(len(vols), "%d disks"), counted(len(folders), "%d folders"))
	}
	if len(errs) > 0 {
		c = Failf(name, "could not clean what a stopped self-test left: %v", errors.Join(errs...))
	}
	c.Rule = "the run folders (run-PID) of self-tests whose process is gone are removed, after the disks their records list are ejected; a disk no record lists is never touched"
	c.Data = map[string]any{"disks": names(vols), "folders": folders}
	return c
}

func names(vs []ramdisk.Volume) []string {
	out := []string{}
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// Cleanup ejects every disk this run made and removes its folder: the
// last check of a run, made however the others went.
func (r *Runner) Cleanup(ctx context.Context) Check {
	const name = "cleanup"
	ctx = context.WithoutCancel(ctx)
	var errs []error
	vs, err := r.Engine.List(ctx)
	if err != nil {
		errs = append(errs, err)
	}
	ejected := 0
	ours := recorded(r.Work(), r.PID)
	for _, v := range vs {
		if ours[v.Name] {
			if err := r.Engine.Eject(ctx, v, true); err != nil && !errors.Is(err, ramdisk.ErrNotFound) {
				errs = append(errs, fmt.Errorf("eject %s: %w", v.Name, err))
				continue
			}
			ejected++
		}
	}
	r.made, r.kept = nil, nil
	if r.inPlaceDir != "" && len(errs) == 0 { // made by this run (os.Mkdir), uncovered by the ejects
		if err := os.RemoveAll(r.inPlaceDir); err != nil {
			errs = append(errs, err)
		}
		r.inPlaceDir = ""
	}
	if err := os.RemoveAll(r.Work()); err != nil {
		errs = append(errs, err)
	}
	if ents, err := os.ReadDir(r.Root); err == nil && len(ents) == 0 {
		os.Remove(r.Root)
	}
	if len(errs) > 0 {
		return Failf(name, "left behind: %v", errors.Join(errs...))
	}
	c := Passf(name, "ejected %s and removed %s", counted(ejected, "%d self-test disks"), r.Work())
	c.Rule = "every disk this run made is ejected and its folder removed"
	return c
}
