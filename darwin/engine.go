// Package darwin is RAMBar's macOS engine: ram:// disk images attached with
// `diskutil image attach` (or `hdiutil attach` where that verb is missing),
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
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"rambar/internal/run"
	"rambar/ramdisk"
)

// The attach tools AttachTool reports.
const (
	AttachDiskutil = "diskutil" // diskutil image attach --noMount (macOS 14+)
	AttachHdiutil  = "hdiutil"  // hdiutil attach -nomount (deprecated in macOS 27)
)

// DiskutilImageSince is the first macOS major version whose `diskutil image
// attach` RAMBar uses (Homebrew's choice; the verb appeared in 13).
const DiskutilImageSince = 14

// Marker is the file RAMBar writes at the root of every disk it makes.
const Marker = ".rambar"

// Engine is the macOS engine. Make it with New; it is safe for concurrent use.
type Engine struct {
	r         run.Runner
	mountRoot string
	uid, gid  int
	statfs    StatFS
	now       func() time.Time

	mu     sync.Mutex
	attach string // decided once: AttachDiskutil or AttachHdiutil
}

var _ ramdisk.Engine = (*Engine)(nil)

// Option configures an Engine.
type Option func(*Engine)

// WithMountRoot sets where disks are mounted (default /Volumes). The fake Mac
// in tests mounts under a temporary folder.
func WithMountRoot(dir string) Option { return func(e *Engine) { e.mountRoot = dir } }

// WithAttachTool skips the probe and uses tool (AttachDiskutil or AttachHdiutil).
func WithAttachTool(tool string) Option { return func(e *Engine) { e.attach = tool } }

// WithOwner sets the user a tmpfs disk is given to (default: this process's).
func WithOwner(uid, gid int) Option { return func(e *Engine) { e.uid, e.gid = uid, gid } }

// WithStatfs replaces the file system statistics call (tests).
func WithStatfs(f StatFS) Option { return func(e *Engine) { e.statfs = f } }

// New returns an engine that runs tools through r.
func New(r run.Runner, opts ...Option) *Engine {
	e := &Engine{r: r, mountRoot: "/Volumes", uid: os.Getuid(), gid: os.Getgid(), statfs: systemStatfs, now: time.Now}
	for _, o := range opts {
		o(e)
	}
	return e
}

// Caps implements ramdisk.Engine.
func (e *Engine) Caps() ramdisk.Caps {
	return ramdisk.Caps{
		OS:            "darwin",
		FileSystems:   []ramdisk.FileSystem{ramdisk.APFS, ramdisk.APFSCase, ramdisk.HFSPlus, ramdisk.HFSPlusCase, ramdisk.TmpFS},
		NeedsAdmin:    []ramdisk.FileSystem{ramdisk.TmpFS},
		MountRoot:     e.mountRoot,
		HeldIsCostly:  true,
		LazyThreshold: ramdisk.DiskImageLazyThreshold,
	}
}

// Tools lists the programs the engine runs, for `rambar doctor`.
func (e *Engine) Tools() []string {
	return []string{"hdiutil", "diskutil", "sw_vers", "footprint", "ps", "lsof", "mdutil", "mount", "mount_tmpfs", "osascript", "vm_stat", "sysctl", "memory_pressure", "ditto"}
}

// AttachTool reports which tool attaches ram:// devices on this Mac, deciding
// once per Engine: `diskutil image attach` from macOS DiskutilImageSince
// (sw_vers -productVersion), else `hdiutil attach`. If the diskutil verb then
// fails where hdiutil works, the engine switches to hdiutil for good.
func (e *Engine) AttachTool(ctx context.Context) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.attach == "" {
		e.attach = AttachHdiutil
		if out, err := run.Output(ctx, e.r, "sw_vers", "-productVersion"); err == nil {
			if major, ok := macOSMajor(string(out)); ok && major >= DiskutilImageSince {
				e.attach = AttachDiskutil
			}
		}
	}
	return e.attach
}

func (e *Engine) setAttach(tool string) { e.mu.Lock(); e.attach = tool; e.mu.Unlock() }

// macOSMajor reads "26.4.1" or "10.15.7" as 26 or 10.
func macOSMajor(s string) (int, bool) {
	f := strings.SplitN(strings.TrimSpace(s), ".", 2)
	n, err := strconv.Atoi(f[0])
	return n, err == nil && n > 0
}

// ToolError is a tool's failure with its own words (stderr, or stdout where
// the tool reports there), macOS 27's deprecation warnings removed.
type ToolError struct {
	Err   *run.Error
	Words string
}

func (t *ToolError) Error() string {
	if t.Words == "" {
		return fmt.Sprintf("exit %d", t.Err.ExitCode)
	}
	return t.Words
}

// Unwrap returns the *run.Error.
func (t *ToolError) Unwrap() error { return t.Err }

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
	return &ToolError{Err: re, Words: strings.ReplaceAll(words, "\n", "; ")}
}

func (e *Engine) run(ctx context.Context, argv ...string) (run.Result, error) {
	return e.r.Run(ctx, run.Cmd{Argv: argv})
}

// attachRAM attaches an unformatted ram:// device of n sectors and returns it
// (/dev/diskN, trimmed).
func (e *Engine) attachRAM(ctx context.Context, sectors int64, hidden bool) (string, error) {
	url := fmt.Sprintf("ram://%d", sectors)
	hd := func() (string, error) {
		argv := []string{"hdiutil", "attach", "-nomount"}
		if hidden {
			argv = append(argv, "-nobrowse")
		}
		res, err := e.run(ctx, append(argv, url)...)
		if err != nil {
			return "", fmt.Errorf("hdiutil attach %s: %w", url, toolErr(err))
		}
		dev, err := ParseAttach(res.Stdout)
		if err != nil {
			return "", fmt.Errorf("hdiutil attach %s: %w", url, err)
		}
		return dev, nil
	}
	if e.AttachTool(ctx) == AttachHdiutil {
		return hd()
	}
	argv := []string{"diskutil", "image", "attach", "--noMount"}
	if hidden {
		argv = append(argv, "--nobrowse")
	}
	res, err := e.run(ctx, append(argv, url)...)
	if err == nil {
		dev, perr := ParseAttach(res.Stdout)
		if perr == nil {
			return dev, nil
		}
		return "", fmt.Errorf("diskutil image attach %s: %w", url, perr)
	}
	derr := fmt.Errorf("diskutil image attach %s: %w", url, toolErr(err))
	dev, herr := hd()
	if herr != nil {
		return "", errors.Join(derr, herr)
	}
	e.setAttach(AttachHdiutil)
	return dev, nil
}

// detach frees a ram:// device: diskutil eject, then hdiutil detach -force.
// It runs even when ctx is cancelled (it is cleanup).
func (e *Engine) detach(ctx context.Context, dev string) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	_, err := e.run(ctx, "diskutil", "eject", dev)
	if err == nil {
		return nil
	}
	derr := fmt.Errorf("diskutil eject %s: %w", dev, toolErr(err))
	if _, err := e.run(ctx, "hdiutil", "detach", "-force", dev); err != nil {
		return errors.Join(derr, fmt.Errorf("hdiutil detach -force %s: %w", dev, toolErr(err)))
	}
	return nil
}

// diskutilFS is the erasevolume format for a file system.
func diskutilFS(fs ramdisk.FileSystem) (string, bool) {
	switch fs {
	case ramdisk.APFS:
		return "APFS", true
	case ramdisk.APFSCase:
		return "APFSX", true
	case ramdisk.HFSPlus:
		return "JHFS+", true
	case ramdisk.HFSPlusCase:
		return "JHFSX", true
	}
	return "", false
}

func (e *Engine) diskInfo(ctx context.Context, target string) (DiskInfo, error) {
	res, err := e.run(ctx, "diskutil", "info", "-plist", target)
	if err != nil {
		// diskutil -plist reports failures as a plist on stdout, exit 1.
		if d, perr := ParseDiskInfo(res.Stdout); perr != nil && d.Error {
			return d, fmt.Errorf("diskutil info %s: %w", target, perr)
		}
		return DiskInfo{}, fmt.Errorf("diskutil info %s: %w", target, toolErr(err))
	}
	d, err := ParseDiskInfo(res.Stdout)
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
		return ramdisk.Volume{}, fmt.Errorf("%w %q: may not start with '-' on macOS (diskutil could read it as an option)", ramdisk.ErrName, p.Name)
	}
	if !e.Caps().Supports(p.FS) {
		return ramdisk.Volume{}, fmt.Errorf("%w: %s on macOS", ramdisk.ErrUnsupported, p.FS.Label())
	}
	if p.Size < ramdisk.MinSize {
		return ramdisk.Volume{}, fmt.Errorf("%w: %s is below the minimum of %s", ramdisk.ErrSize, p.Size, ramdisk.MinSize)
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
	target := ParseErase(res.Stdout)
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
		Allocation: ramdisk.AllocationFor(p.FS, p.Size), Managed: true,
	}
	v.Notes = append(v.Notes, e.spotlight(ctx, mp, p)...)
	v.Notes = append(v.Notes, ownershipNotes(info)...)
	if im, ok := e.imageFor(ctx, dev); ok {
		v.HelperPID = im.HelperPID
	}
	if v.HelperPID == 0 {
		v.Notes = append(v.Notes, noHelperNote)
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
			return fmt.Errorf("%w: %q at %s", ramdisk.ErrExists, name, v.MountPoint)
		}
	}
	if d, err := e.diskInfo(ctx, mp); err == nil && d.MountPoint == mp {
		return fmt.Errorf("%w: a volume is mounted at %s", ramdisk.ErrExists, mp)
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
	if err := os.WriteFile(filepath.Join(mp, Marker), append(m, '\n'), 0o600); err != nil {
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
func (e *Engine) spotlightOff(ctx context.Context, mp string) []string {
	res, err := e.run(ctx, "mdutil", "-i", "off", mp)
	if err != nil {
		return []string{fmt.Sprintf("mdutil -i off %s: %v", mp, toolErr(err))}
	}
	if !ParseMdutil(res.Stdout) {
		return []string{fmt.Sprintf("mdutil -i off %s did not confirm indexing is disabled", mp)}
	}
	return nil
}

func ownershipNotes(d DiskInfo) []string {
	if d.GlobalPermissionsEnabled != nil && !*d.GlobalPermissionsEnabled {
		return []string{"ownership is ignored on this volume: other users of this Mac can open its files (sudo diskutil enableOwnership turns it on)"}
	}
	return nil
}

// images reads hdiutil info -plist.
func (e *Engine) images(ctx context.Context) ([]Image, error) {
	res, err := e.run(ctx, "hdiutil", "info", "-plist")
	if err != nil {
		return nil, fmt.Errorf("hdiutil info: %w", toolErr(err))
	}
	return ParseInfoPlist(res.Stdout)
}

// imageFor finds the attached ram:// image whose whole disk is dev.
func (e *Engine) imageFor(ctx context.Context, dev string) (Image, bool) {
	ims, err := e.images(ctx)
	if err != nil {
		return Image{}, false
	}
	for _, im := range ims {
		if im.IsRAM() && im.Device() == dev {
			return im, true
		}
	}
	return Image{}, false
}

// fsOf maps diskutil's description onto a FileSystem.
func fsOf(d DiskInfo) ramdisk.FileSystem {
	cs := d.CaseSensitive()
	switch {
	case d.IsAPFS() && cs:
		return ramdisk.APFSCase
	case d.IsAPFS():
		return ramdisk.APFS
	case cs:
		return ramdisk.HFSPlusCase
	}
	return ramdisk.HFSPlus
}

func devPath(id string) string {
	if id == "" || strings.HasPrefix(id, "/dev/") {
		return id
	}
	return "/dev/" + id
}

func hasMarker(mp string) bool {
	_, err := os.Lstat(filepath.Join(mp, Marker))
	return err == nil
}

// List implements ramdisk.Engine: ram:// images from hdiutil info joined with
// diskutil info; RAMBar-made disk images missing from hdiutil info (attached
// with diskutil image) found through diskutil list and their marker; tmpfs
// mounts under the mount root from the mount table.
func (e *Engine) List(ctx context.Context) ([]ramdisk.Volume, error) {
	var out []ramdisk.Volume
	mounts := map[string]MountEntry{}
	mres, merr := e.run(ctx, "mount")
	if merr == nil {
		for _, m := range ParseMount(mres.Stdout) {
			mounts[m.MountPoint] = m
		}
	}
	ims, ierr := e.images(ctx)
	known := map[string]bool{} // devices that belong to some image
	for _, im := range ims {
		for _, en := range im.Entities {
			known[strings.TrimPrefix(en.Dev, "/dev/")] = true
		}
	}
	for _, im := range ims {
		if !im.IsRAM() {
			continue
		}
		en, ok := im.Mounted()
		if !ok {
			continue
		}
		d, err := e.diskInfo(ctx, en.Dev)
		if err != nil {
			if errors.Is(err, ErrNoDisk) {
				continue // gone while listing
			}
			return nil, err
		}
		mp := d.MountPoint
		if mp == "" {
			mp = en.MountPoint
		}
		v := ramdisk.Volume{Name: d.VolumeName, MountPoint: mp, Device: im.Device(), FS: fsOf(d),
			Size: ramdisk.Size(im.Size()), HelperPID: im.HelperPID, Managed: hasMarker(mp)}
		if v.Size == 0 {
			v.Size = ramdisk.Size(d.Capacity())
		}
		if v.Name == "" {
			v.Name = filepath.Base(mp)
		}
		if v.HelperPID == 0 {
			v.Notes = append(v.Notes, noHelperNote)
		}
		out = append(out, e.finish(v, d, mounts))
	}
	// Disk images hdiutil does not report: only RAMBar's own (the marker says
	// so), since nothing known tells a diskutil-attached ram:// disk from a .dmg.
	lres, lerr := e.run(ctx, "diskutil", "list", "-plist")
	if lerr == nil {
		if l, err := ParseList(lres.Stdout); err == nil {
			ids := l.Mounted()
			keys := make([]string, 0, len(ids))
			for id := range ids {
				keys = append(keys, id)
			}
			sort.Strings(keys)
			for _, id := range keys {
				mp := ids[id]
				if known[id] || !hasMarker(mp) {
					continue
				}
				d, err := e.diskInfo(ctx, id)
				if err != nil || !d.IsDiskImage() {
					continue
				}
				dev := devPath(d.ParentWholeDisk)
				if st := d.Stores(); d.IsAPFS() && len(st) > 0 {
					dev = devPath(st[0])
				}
				v := ramdisk.Volume{Name: d.VolumeName, MountPoint: d.MountPoint, Device: dev, FS: fsOf(d),
					Size: ramdisk.Size(d.Capacity()), Managed: true, Notes: []string{noHelperNote}}
				if v.MountPoint == "" {
					v.MountPoint = mp
				}
				if mk, ok := readMarker(v.MountPoint); ok && mk.Size > 0 {
					v.Size = mk.Size
				}
				out = append(out, e.finish(v, d, mounts))
			}
		}
	}
	if ierr != nil && lerr != nil {
		return nil, errors.Join(ierr, fmt.Errorf("diskutil list: %w", toolErr(lerr)))
	}
	if merr == nil {
		for _, m := range mounts {
			if m.FSType != "tmpfs" || (filepath.Dir(m.MountPoint) != filepath.Clean(e.mountRoot) && !hasMarker(m.MountPoint)) {
				continue
			}
			v := ramdisk.Volume{Name: filepath.Base(m.MountPoint), MountPoint: m.MountPoint, Device: m.Source,
				FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite, Managed: hasMarker(m.MountPoint)}
			if mk, ok := readMarker(m.MountPoint); ok {
				v.Size = mk.Size
				if mk.Name != "" {
					v.Name = mk.Name
				}
			}
			if st, err := e.statfs(m.MountPoint); err == nil && v.Size == 0 {
				v.Size = ramdisk.Size(st.Total)
			}
			out = append(out, v)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].MountPoint < out[j].MountPoint
	})
	return out, nil
}

// finish fills what every disk image volume shares.
func (e *Engine) finish(v ramdisk.Volume, d DiskInfo, mounts map[string]MountEntry) ramdisk.Volume {
	v.Allocation = ramdisk.AllocationFor(v.FS, v.Size)
	if m, ok := mounts[v.MountPoint]; ok {
		for _, o := range m.Options {
			if o == "nobrowse" {
				v.Hidden = true
			}
		}
	}
	v.Notes = append(v.Notes, ownershipNotes(d)...)
	return v
}

func readMarker(mp string) (marker, bool) {
	b, err := os.ReadFile(filepath.Join(mp, Marker))
	if err != nil {
		return marker{}, false
	}
	var m marker
	if err := json.Unmarshal(b, &m); err != nil {
		return marker{}, false
	}
	return m, true
}

// Usage implements ramdisk.Engine: size and free space from diskutil info
// (the container's free space for APFS), memory held from the helper's
// footprint (ps rss when footprint fails). HeldKnown is false when the helper
// is unknown.
func (e *Engine) Usage(ctx context.Context, v ramdisk.Volume) (ramdisk.Usage, error) {
	u := ramdisk.Usage{At: e.now()}
	if v.FS == ramdisk.TmpFS {
		if !e.tmpfsMounted(ctx, v.MountPoint) {
			return u, fmt.Errorf("%s: %w", v.MountPoint, ramdisk.ErrNotFound)
		}
		st, err := e.statfs(v.MountPoint)
		if err != nil {
			return u, fmt.Errorf("statfs %s: %w", v.MountPoint, err)
		}
		u.Size, u.Free = ramdisk.Size(st.Total), ramdisk.Size(st.Free)
		u.Used = u.Size - u.Free
		u.Files = st.Files
		// tmpfs pages are kernel memory: what the files take is what is held.
		u.Held, u.HeldKnown = u.Used, true
		return u, nil
	}
	d, err := e.diskInfo(ctx, v.MountPoint)
	if err != nil {
		if errors.Is(err, ErrNoDisk) {
			return u, fmt.Errorf("%s: %w", v.Name, ramdisk.ErrNotFound)
		}
		return u, err
	}
	if d.MountPoint != v.MountPoint {
		return u, fmt.Errorf("%s: %w (nothing mounted at %s)", v.Name, ramdisk.ErrNotFound, v.MountPoint)
	}
	u.Size = ramdisk.Size(d.Capacity())
	u.Free = ramdisk.Size(d.Free())
	if u.Free > u.Size {
		u.Free = u.Size
	}
	u.Used = u.Size - u.Free
	pid := v.HelperPID
	if pid == 0 && v.Device != "" {
		if im, ok := e.imageFor(ctx, v.Device); ok {
			pid = im.HelperPID
		}
	}
	if pid > 0 {
		if n, err := e.held(ctx, pid); err == nil {
			u.Held, u.HeldKnown = ramdisk.Size(n), true
		}
	}
	return u, nil
}

// held is the helper's memory: footprint's phys_footprint, else ps rss.
func (e *Engine) held(ctx context.Context, pid int) (int64, error) {
	p := strconv.Itoa(pid)
	res, ferr := e.run(ctx, "footprint", "-f", "bytes", "--noCategories", p)
	if ferr == nil {
		if fps, err := ParseFootprintText(res.Stdout); err == nil {
			for _, f := range fps {
				if f.PID == pid {
					return f.Bytes(), nil
				}
			}
		}
	}
	res, err := e.run(ctx, "ps", "-o", "rss=", "-p", p)
	if err != nil {
		return 0, errors.Join(fmt.Errorf("footprint %s: %w", p, toolErr(ferr)), fmt.Errorf("ps -p %s: %w", p, toolErr(err)))
	}
	return ParseRSS(res.Stdout)
}

// Eject implements ramdisk.Engine. Disk images: `diskutil eject DEV` of the
// ram:// device (which frees the memory, APFS container included), falling
// back to `hdiutil detach DEV`; busy (diskutil -69888 or a dissent, hdiutil
// exit 16) gives a *BusyError naming lsof's holders. force unmounts with
// `diskutil unmountDisk force` first, then ejects, falling back to `hdiutil
// detach -force`. An unmounted but still attached image (an earlier partial
// eject) is detached.
func (e *Engine) Eject(ctx context.Context, v ramdisk.Volume, force bool) error {
	if v.FS == ramdisk.TmpFS {
		return e.ejectTmpfs(ctx, v, force)
	}
	dev, err := e.resolve(ctx, v)
	if err != nil {
		return err
	}
	if force {
		_, uerr := e.run(ctx, "diskutil", "unmountDisk", "force", dev)
		_, eerr := e.run(ctx, "diskutil", "eject", dev)
		if eerr == nil {
			return nil
		}
		if _, herr := e.run(ctx, "hdiutil", "detach", "-force", dev); herr != nil {
			errs := []error{fmt.Errorf("diskutil eject %s: %w", dev, toolErr(eerr)), fmt.Errorf("hdiutil detach -force %s: %w", dev, toolErr(herr))}
			if uerr != nil {
				errs = append([]error{fmt.Errorf("diskutil unmountDisk force %s: %w", dev, toolErr(uerr))}, errs...)
			}
			return errors.Join(errs...)
		}
		return nil
	}
	res, derr := e.run(ctx, "diskutil", "eject", dev)
	if derr == nil {
		return nil
	}
	out := append(append([]byte{}, res.Stdout...), res.Stderr...)
	if DiskutilCode(out) == CodeBusy || len(Dissenters(out)) > 0 {
		return e.busy(ctx, v, Dissenters(out), fmt.Errorf("diskutil eject %s: %w", dev, toolErr(derr)))
	}
	_, herr := e.run(ctx, "hdiutil", "detach", dev)
	if herr == nil {
		return nil
	}
	if run.ExitCode(herr) == 16 {
		return e.busy(ctx, v, nil, fmt.Errorf("hdiutil detach %s: %w", dev, toolErr(herr)))
	}
	return errors.Join(fmt.Errorf("diskutil eject %s: %w", dev, toolErr(derr)), fmt.Errorf("hdiutil detach %s: %w", dev, toolErr(herr)))
}

// resolve finds the ram:// device that still backs v, or ErrNotFound. A
// device number reused by another disk is not v.
func (e *Engine) resolve(ctx context.Context, v ramdisk.Volume) (string, error) {
	ims, ierr := e.images(ctx)
	for _, im := range ims {
		if !im.IsRAM() || (v.Device != "" && im.Device() != v.Device) {
			continue
		}
		en, mounted := im.Mounted()
		if v.Device == "" && (!mounted || en.MountPoint != v.MountPoint) {
			continue
		}
		if mounted && v.MountPoint != "" && en.MountPoint != v.MountPoint {
			return "", fmt.Errorf("%s: %w (%s now serves %s)", v.Name, ramdisk.ErrNotFound, im.Device(), en.MountPoint)
		}
		return im.Device(), nil
	}
	// Not in hdiutil info: a disk image attached with diskutil image.
	if v.MountPoint != "" {
		if d, err := e.diskInfo(ctx, v.MountPoint); err == nil && d.MountPoint == v.MountPoint && d.IsDiskImage() {
			dev := devPath(d.ParentWholeDisk)
			if st := d.Stores(); d.IsAPFS() && len(st) > 0 {
				dev = devPath(st[0])
			}
			return dev, nil
		}
	}
	if v.Device != "" && ierr != nil {
		if d, err := e.diskInfo(ctx, v.Device); err == nil && d.IsDiskImage() && d.MountPoint == "" {
			return v.Device, nil
		}
	}
	return "", fmt.Errorf("%s: %w", v.Name, ramdisk.ErrNotFound)
}

// busy builds the BusyError: lsof's holders, else the processes diskutil named.
func (e *Engine) busy(ctx context.Context, v ramdisk.Volume, dissent []Proc, cause error) error {
	be := &ramdisk.BusyError{Volume: v.Name, Err: cause}
	if be.Volume == "" {
		be.Volume = v.MountPoint
	}
	procs := e.holders(ctx, v.MountPoint)
	if len(procs) == 0 {
		procs = dissent
	}
	for _, p := range procs {
		be.Holders = append(be.Holders, ramdisk.Holder{PID: p.PID, Command: p.Command})
	}
	return be
}

// holders lists processes with files open on the volume (lsof +f -- MP).
func (e *Engine) holders(ctx context.Context, mp string) []Proc {
	if mp == "" {
		return nil
	}
	res, err := e.run(ctx, "lsof", "-F", "pc", "+f", "--", mp)
	if err != nil && run.ExitCode(err) != 1 { // lsof exits 1 when nothing is open
		return nil
	}
	return ParseLsofF(res.Stdout)
}

// Memory implements ramdisk.Engine: vm_stat (page size from its header),
// sysctl hw.memsize and vm.swapusage, and the kernel's pressure level.
func (e *Engine) Memory(ctx context.Context) (ramdisk.Memory, error) {
	var m ramdisk.Memory
	res, err := e.run(ctx, "sysctl", "hw.memsize", "vm.swapusage")
	if err != nil {
		return m, fmt.Errorf("sysctl hw.memsize vm.swapusage: %w", toolErr(err))
	}
	sc := ParseSysctl(res.Stdout)
	phys, err := sc.MemSize()
	if err != nil {
		return m, fmt.Errorf("sysctl hw.memsize: %w", err)
	}
	m.Physical = ramdisk.Size(phys)
	if s, ok := sc["vm.swapusage"]; ok {
		sw, err := ParseSwap(s)
		if err != nil {
			return m, err
		}
		m.SwapTotal, m.SwapUsed = ramdisk.Size(sw.Total), ramdisk.Size(sw.Used)
	}
	res, err = e.run(ctx, "vm_stat")
	if err != nil {
		return m, fmt.Errorf("vm_stat: %w", toolErr(err))
	}
	vm, err := ParseVMStat(res.Stdout)
	if err != nil {
		return m, err
	}
	m.Free = ramdisk.Size(min(vm.Available(), phys))
	m.Compressed = ramdisk.Size(vm.Compressed())
	if res, err := e.run(ctx, "sysctl", "-n", "kern.memorystatus_vm_pressure_level"); err == nil {
		m.Pressure = PressureLevel(string(res.Stdout))
	}
	return m, nil
}

// FreePercent is memory_pressure's "System-wide memory free percentage".
func (e *Engine) FreePercent(ctx context.Context) (int, error) {
	res, err := e.run(ctx, "memory_pressure", "-Q")
	if err != nil {
		return 0, fmt.Errorf("memory_pressure -Q: %w", toolErr(err))
	}
	p, err := ParsePressure(res.Stdout)
	if err != nil {
		return 0, err
	}
	return p.FreePercent, nil
}
