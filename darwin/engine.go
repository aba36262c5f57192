// Package darwin is RAMBar's macOS engine: ram:// disk images attached with
// `hdiutil attach` through macOS 26 and `diskutil image attach` from 27 (where
// hdiutil warns that it is deprecated),
// formatted with `diskutil erasevolume`, measured through the
// diskimages-helper's footprint, ejected with `diskutil eject`; and tmpfs
// (`mount_tmpfs`) behind the administrator prompt.
//
// Every tool output is parsed by code in files without a build tag, so the
// parsers and the engine's flows are tested on Linux against captured output
// (testdata/) and a stateful fake Mac. README.md records what is known and
// not known about the tools' behaviour.
package darwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"rambar/i18n"
	"rambar/internal/diskspace"
	"rambar/internal/record"
	"rambar/internal/run"
	"rambar/ramdisk"
)

// The attach tools AttachTool reports.
const (
	attachDiskutil = "diskutil" // diskutil image attach --noMount (macOS 27+, where hdiutil warns)
	attachHdiutil  = "hdiutil"  // hdiutil attach -nomount (through macOS 26; deprecated in 27)
)

// diskutilImageSince is the first macOS major version whose `diskutil image
// attach` RAMBar uses: 27, where hdiutil attach prints its deprecation
// warning. When the verb appeared is disputed (13, 14 and 26 are claimed) and
// Homebrew reverted its switch from 14 (#23444); hdiutil is what the memory
// findings were measured with.
const diskutilImageSince = 27

// markerFile is the file RAMBar writes at the root of every disk it makes.
const markerFile = ".rambar"

// Engine is the macOS engine. Make it with New; it is safe for concurrent use.
type Engine struct {
	r         run.Runner
	mountRoot string
	uid, gid  int
	statfs    func(path string) (diskspace.Stat, error)
	now       func() time.Time
	// fileID is a path's volume and inode (stat(2)): how a folder is known
	// to be a volume's mount point whichever form of its path names it.
	fileID func(path string) (fileID, error)

	mu     sync.Mutex
	attach string // decided once: attachDiskutil or attachHdiutil
	// noDiskutilImage: `diskutil image attach` was found missing, so
	// hdiutil's deprecation warning does not move back to it.
	noDiskutilImage bool
}

var _ ramdisk.Engine = (*Engine)(nil)

// Option configures an Engine.
type Option func(*Engine)

// withMountRoot sets where disks are mounted (default /Volumes). The fake Mac
// in tests mounts under a temporary folder.
func withMountRoot(dir string) Option { return func(e *Engine) { e.mountRoot = dir } }

// withAttachTool skips the probe and uses tool (attachDiskutil or attachHdiutil).
func withAttachTool(tool string) Option { return func(e *Engine) { e.attach = tool } }

// withOwner sets the user a tmpfs disk is given to (default: this process's).
func withOwner(uid, gid int) Option { return func(e *Engine) { e.uid, e.gid = uid, gid } }

// withStatfs replaces the file system statistics call (tests).
func withStatfs(f func(string) (diskspace.Stat, error)) Option {
	return func(e *Engine) { e.statfs = f }
}

// withFileID replaces the stat of a path's volume and inode (tests).
func withFileID(f func(string) (fileID, error)) Option { return func(e *Engine) { e.fileID = f } }

// New returns an engine that runs tools through r.
func New(r run.Runner, opts ...Option) *Engine {
	e := &Engine{r: r, mountRoot: "/Volumes", uid: os.Getuid(), gid: os.Getgid(), statfs: diskspace.Of, now: time.Now, fileID: statID}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Caps implements ramdisk.Engine.
func (e *Engine) Caps() ramdisk.Caps {
	return ramdisk.Caps{
		OS:            "darwin",
		FileSystems:   []ramdisk.FileSystem{ramdisk.APFS, ramdisk.APFSCase, ramdisk.HFSPlus, ramdisk.HFSPlusCase, ramdisk.JHFSPlus, ramdisk.TmpFS},
		NeedsAdmin:    []ramdisk.FileSystem{ramdisk.TmpFS},
		MountRoot:     e.mountRoot,
		HeldIsCostly:  true,
		LazyThreshold: ramdisk.DiskImageLazyThreshold,
		TmpFSShare:    50, // mount_tmpfs caps a tmpfs at half the memory (TmpDisk #36)
		// Names as macOS treats them (the one rule: internal/record).
		CaseSensitiveNames: !record.NamesOf("darwin").Folded,
	}
}

// Tools lists the programs the engine runs (and doctor --capture uses), for
// `rambar doctor`.
func (e *Engine) Tools() []string {
	return []string{"hdiutil", "diskutil", "sw_vers", "footprint", "ps", "lsof", "mdutil", "mount", "mount_tmpfs", "osascript", "vm_stat", "sysctl", "memory_pressure", "ditto", "xattr", "launchctl"}
}

// toolError is a tool's failure with its own words (stderr, or stdout where
// the tool reports there), macOS 27's deprecation warnings removed.
type toolError struct {
	Err   *run.Error
	Words string
}

func (t *toolError) Error() string {
	if t.Words == "" {
		return fmt.Sprintf("exit %d", t.Err.ExitCode)
	}
	return t.Words
}

// Unwrap returns the *run.Error.
func (t *toolError) Unwrap() error { return t.Err }

// toolErr keeps a tool's words and drops the deprecation warning.
func toolErr(err error) error {
	var re *run.Error
	if !errors.As(err, &re) {
		return err
	}
	if re.ExitCode < 0 {
		return err
	}
	words := stripWarnings(string(re.Stderr))
	if words == "" {
		words = strings.TrimSpace(string(re.Stdout))
	}
	if len(words) > 400 {
		words = words[:400] + "…"
	}
	return &toolError{Err: re, Words: strings.ReplaceAll(words, "\n", "; ")}
}

func (e *Engine) run(ctx context.Context, argv ...string) (run.Result, error) {
	return e.r.Run(ctx, run.Cmd{Argv: argv})
}

func (e *Engine) diskInfo(ctx context.Context, target string) (diskInfoPlist, error) {
	res, err := e.run(ctx, "diskutil", "info", "-plist", target)
	if err != nil {
		// diskutil -plist reports failures as a plist on stdout, exit 1.
		if d, perr := parseDiskInfo(res.Stdout); perr != nil && d.Error {
			return d, fmt.Errorf("diskutil info %s: %w", target, perr)
		}
		return diskInfoPlist{}, fmt.Errorf("diskutil info %s: %w", target, toolErr(err))
	}
	d, err := parseDiskInfo(res.Stdout)
	if err != nil {
		return d, fmt.Errorf("diskutil info %s: %w", target, err)
	}
	return d, nil
}

// Create implements ramdisk.Engine. Disk images: attach, erasevolume, read the
// mount point back, write the marker files (.rambar, .metadata_never_index,
// .fseventsd/no_log), turn Spotlight off. If any step after the attach fails
// the device is detached before Create returns, and the error carries the
// failing tool's words (joined with the cleanup's, if that fails too).
func (e *Engine) Create(ctx context.Context, p ramdisk.Plan) (ramdisk.Volume, error) {
	if err := ramdisk.ValidateName(p.Name); err != nil {
		return ramdisk.Volume{}, err
	}
	if strings.HasPrefix(p.Name, "-") {
		return ramdisk.Volume{}, i18n.Errorf("%w %q: may not start with '-' on macOS (diskutil could read it as an option)", ramdisk.ErrName, p.Name)
	}
	if !e.Caps().Supports(p.FS) {
		return ramdisk.Volume{}, i18n.Errorf("%w: %s on macOS", ramdisk.ErrUnsupported, p.FS.Label())
	}
	if p.Size < ramdisk.MinSize {
		return ramdisk.Volume{}, i18n.Errorf("%w: %s is below the minimum of %s", ramdisk.ErrSize, p.Size, ramdisk.MinSize)
	}
	if err := checkOptions(p); err != nil {
		return ramdisk.Volume{}, err
	}
	mp := p.MountPoint
	if mp == "" {
		mp = filepath.Join(e.mountRoot, p.Name)
	}
	if err := e.refuseExisting(ctx, p.Name, mp); err != nil {
		return ramdisk.Volume{}, err
	}
	if p.CacheFallback != "" {
		if err := e.leaveFallback(p); err != nil {
			return ramdisk.Volume{}, err
		}
	}
	if p.FS == ramdisk.TmpFS {
		return e.createTmpfs(ctx, p, mp)
	}
	format, _ := diskutilFS(p.FS)
	dev, err := e.attachRAM(ctx, p.Size.Sectors(), p.Hidden)
	if err != nil {
		return ramdisk.Volume{}, err
	}
	fail := func(err error) (ramdisk.Volume, error) {
		if cerr := e.detach(ctx, dev); cerr != nil {
			return ramdisk.Volume{}, errors.Join(err, fmt.Errorf("cleanup: %s is still attached: %w", dev, cerr))
		}
		return ramdisk.Volume{}, err
	}
	res, err := e.run(ctx, "diskutil", "erasevolume", format, p.Name, dev)
	if err != nil {
		return fail(fmt.Errorf("diskutil erasevolume %s %s %s: %w", format, p.Name, dev, toolErr(err)))
	}
	target := parseErase(res.Stdout)
	if target == "" {
		target = mp
	}
	info, err := e.diskInfo(ctx, target)
	if err != nil {
		return fail(err)
	}
	if info.MountPoint == "" {
		return fail(fmt.Errorf("diskutil erasevolume %s %s %s: the volume %s is not mounted", format, p.Name, dev, target))
	}
	if mp, err = e.remount(ctx, info, p); err != nil {
		return fail(err)
	}
	if err := e.prepare(mp, p); err != nil {
		return fail(err)
	}
	v := ramdisk.Volume{
		Name: p.Name, MountPoint: mp, Device: dev, FS: p.FS, Size: p.Size, Hidden: p.Hidden,
		Allocation: ramdisk.AllocationFor(p.FS, p.Size), Managed: true, Identity: info.Identity(),
	}
	v.Notes = append(v.Notes, e.spotlight(ctx, mp, p)...)
	v.Notes = append(v.Notes, ownershipNotes(info)...)
	if im, ok := e.imageFor(ctx, dev); ok {
		v.HelperPID = im.HelperPID
	}
	if v.HelperPID == 0 {
		v.Notes = append(v.Notes, ramdisk.Sayf(noHelperNote))
	}
	return v, nil
}

const noHelperNote = "helper process unknown (not in hdiutil info, e.g. attached with diskutil image): memory held cannot be measured"

// refuseExisting gives ErrExists when a RAM disk of that name is listed or
// any volume is mounted at mp (macOS would silently mount at "NAME 1").
func (e *Engine) refuseExisting(ctx context.Context, name, mp string) error {
	vs, err := e.List(ctx)
	if err != nil {
		return err
	}
	for _, v := range vs {
		if strings.EqualFold(v.Name, name) || v.MountPoint == mp {
			return i18n.Errorf("%w: %q at %s", ramdisk.ErrExists, name, v.MountPoint)
		}
	}
	if d, err := e.diskInfo(ctx, mp); err == nil && d.MountPoint == mp {
		return i18n.Errorf("%w: a volume is mounted at %s", ramdisk.ErrExists, mp)
	}
	return nil
}

// marker is what .rambar holds.
type marker struct {
	Name    string             `json:"name"`
	FS      ramdisk.FileSystem `json:"fs"`
	Size    ramdisk.Size       `json:"size_bytes"`
	Created time.Time          `json:"created"`
}

// prepare writes RAMBar's marker and the files that keep Spotlight and
// fseventsd off the disk, and makes the root private to its owner.
func (e *Engine) prepare(mp string, p ramdisk.Plan) error {
	m, err := json.Marshal(marker{Name: p.Name, FS: p.FS, Size: p.Size, Created: e.now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(mp, markerFile), append(m, '\n'), 0o600); err != nil {
		return fmt.Errorf("write marker on %s: %w", mp, err)
	}
	if err := os.WriteFile(filepath.Join(mp, ".metadata_never_index"), nil, 0o644); err != nil {
		return fmt.Errorf("write .metadata_never_index on %s: %w", mp, err)
	}
	if err := os.MkdirAll(filepath.Join(mp, ".fseventsd"), 0o700); err != nil {
		return fmt.Errorf("make .fseventsd on %s: %w", mp, err)
	}
	if err := os.WriteFile(filepath.Join(mp, ".fseventsd", "no_log"), nil, 0o644); err != nil {
		return fmt.Errorf("write .fseventsd/no_log on %s: %w", mp, err)
	}
	if err := os.Chmod(mp, 0o700); err != nil {
		return fmt.Errorf("chmod 700 %s: %w", mp, err)
	}
	return nil
}

// spotlightOff runs mdutil -i off; a failure is a note, not an error (the
// .metadata_never_index file is already there).
func (e *Engine) spotlightOff(ctx context.Context, mp string) []ramdisk.Said {
	res, err := e.run(ctx, "mdutil", "-i", "off", mp)
	if err != nil {
		return []ramdisk.Said{ramdisk.Plain(fmt.Sprintf("mdutil -i off %s: %v", mp, toolErr(err)))}
	}
	if !parseMdutil(res.Stdout) {
		return []ramdisk.Said{ramdisk.Sayf("mdutil -i off %s did not confirm indexing is disabled", mp)}
	}
	return nil
}

func ownershipNotes(d diskInfoPlist) []ramdisk.Said {
	if d.GlobalPermissionsEnabled != nil && !*d.GlobalPermissionsEnabled {
		return []ramdisk.Said{ramdisk.Sayf("ownership is ignored on this volume: other users of this Mac can open its files (sudo diskutil enableOwnership turns it on)")}
	}
	return nil
}
