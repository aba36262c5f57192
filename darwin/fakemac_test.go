package darwin

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"howett.net/plist"

	"rambar/internal/diskspace"
	"rambar/internal/run/runtest"
	"rambar/ramdisk"
)

// fakeImage is one attached ram:// device on the fake Mac.
type fakeImage struct {
	n, container int // whole disk number; APFS container disk number (0: HFS+)
	sectors      int64
	pid          int
	hidden       bool
	viaDiskutil  bool
	name, format string // erasevolume arguments
	uuid         string // the volume's UUID, new at every erase
	mp           string // "" when not mounted
	// below holds what the folder it is mounted on held before (a folder of
	// the user's, which stays at unmount); "" when macOS made the folder.
	below     string
	highWater int64 // most bytes ever written (the helper never gives memory back)
}

func (im *fakeImage) size() int64 { return im.sectors * 512 }

func (im *fakeImage) volID() string {
	if im.container > 0 {
		return fmt.Sprintf("disk%ds1", im.container)
	}
	return fmt.Sprintf("disk%d", im.n)
}

// fakeMac is a stateful fake of the macOS tools RAMBar drives. Mount points
// are real folders under root, so files written to a "volume" are real.
type fakeMac struct {
	t    *testing.T
	root string

	mu       sync.Mutex
	version  string // sw_vers -productVersion
	next     int
	nextPID  int
	images   map[int]*fakeImage
	tmpfs    map[string]int64 // mount point -> size
	holders  map[string][]ramdisk.Holder
	calls    [][]string
	warnings int // deprecation warnings printed
	uuids    int // volume UUIDs handed out

	// Knobs.
	failErase          string // erasevolume fails with this on stderr
	failMount          bool   // erasevolume succeeds but nothing gets mounted
	diskutilBroken     bool   // `diskutil image attach` fails (verb missing)
	hideDiskutil       bool   // images attached with diskutil image are missing from hdiutil info
	busyStyle          string // diskutil eject of a busy disk: "dissent" (default), "69888" or "other" (-69825)
	detachBusy         string // hdiutil detach of a busy disk: "" exit 16, "exit2" (OS X 10.8: exit 2, "Resource busy"), "other" (exit 1, no busy words)
	osaCancel          bool
	noFootprint        bool
	reverseEnts        bool
	swVersBroken       bool   // sw_vers fails
	noMemsize          bool   // sysctl hw.memsize alone fails
	diskutilWords      string // with diskutilBroken: its stderr instead of the usage text
	hdiutilFailsAfter  bool   // hdiutil attach attaches, then fails
	attachGarbage      bool   // attach succeeds but prints nothing readable
	diskutilFailsAfter bool   // diskutil image attach attaches, then fails // hdiutil info lists an image's entities last first (volume, container, whole disk)
}

func newFakeMac(t *testing.T, version string) *fakeMac {
	return &fakeMac{t: t, root: t.TempDir(), version: version, next: 4, nextPID: 91006,
		images: map[int]*fakeImage{}, tmpfs: map[string]int64{}, holders: map[string][]ramdisk.Holder{}}
}

func (f *fakeMac) engine(opts ...Option) *Engine {
	return New(runtest.Func(f.answer), append([]Option{withMountRoot(f.root), withOwner(501, 20), withStatfs(f.statfs)}, opts...)...)
}

func (f *fakeMac) hold(mp string, h ramdisk.Holder) func() {
	f.mu.Lock()
	f.holders[mp] = append(f.holders[mp], h)
	f.mu.Unlock()
	return func() { f.mu.Lock(); delete(f.holders, mp); f.mu.Unlock() }
}

func (f *fakeMac) called(prefix ...string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if len(c) >= len(prefix) && strings.Join(c[:len(prefix)], "\x00") == strings.Join(prefix, "\x00") {
			n++
		}
	}
	return n
}

func (f *fakeMac) attached() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.images) }

func used(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func (f *fakeMac) statfs(path string) (diskspace.Stat, error) {
	f.mu.Lock()
	size, ok := f.tmpfs[path]
	f.mu.Unlock()
	if !ok {
		return diskspace.Stat{}, fmt.Errorf("statfs %s: no such mount", path)
	}
	u := used(path)
	return diskspace.Stat{Total: size, Used: u, Free: size - u, Files: 3}, nil
}

func ok(out string) runtest.Reply           { return runtest.Reply{Stdout: out} }
func fail(code int, e string) runtest.Reply { return runtest.Reply{Stderr: e, Exit: code} }

func (f *fakeMac) major() int { n, _ := macOSMajor(f.version); return n }

func (f *fakeMac) warn(r runtest.Reply, verb string) runtest.Reply {
	if f.major() >= 27 {
		f.warnings++
		w := "hdiutil: WARNING: 'hdiutil detach ...' is deprecated. Please use 'diskutil eject ...' instead.\n"
		if verb == "attach" {
			w = "hdiutil: WARNING: 'hdiutil attach -nomount ...' is deprecated. Please use 'diskutil image attach --noMount ...' instead.\n"
		}
		r.Stderr = w + r.Stderr
	}
	return r
}

// find resolves a diskutil/hdiutil target: /dev/diskN, diskN, diskMs1, or a mount point.
func (f *fakeMac) find(target string) (*fakeImage, bool) {
	id := strings.TrimPrefix(target, "/dev/")
	for _, im := range f.images {
		if id == fmt.Sprintf("disk%d", im.n) || (im.container > 0 && (id == fmt.Sprintf("disk%d", im.container) || id == im.volID())) {
			return im, true
		}
		if im.mp != "" && target == im.mp {
			return im, true
		}
	}
	return nil, false
}

func (f *fakeMac) answer(argv []string, stdin string) runtest.Reply {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, argv)
	if r, ok := f.volumeVerb(argv); ok {
		return r
	}
	a := strings.Join(argv, " ")
	switch {
	case a == "sw_vers -productVersion":
		if f.swVersBroken {
			return fail(1, "sw_vers: not available\n")
		}
		return ok(f.version + "\n")
	case a == "diskutil image attach --help":
		if f.major() < 13 {
			return runtest.Reply{Stdout: "Usage:  diskutil [quiet] <verb> <options>\n", Exit: 1}
		}
		return ok("Usage:  diskutil image attach [options] <image>\n        --noMount  attach without mounting\n")
	case a == "sw_vers":
		return ok("ProductName:\t\tmacOS\nProductVersion:\t\t" + f.version + "\n")
	case strings.HasPrefix(a, "ps -o user,comm -p "):
		if _, found := f.byPID(argv[4]); !found {
			return runtest.Reply{Stdout: "USER   COMM\n", Exit: 1}
		}
		return ok("USER   COMM\nalice  /System/Library/PrivateFrameworks/DiskImages.framework/Resources/diskimages-helper\n")
	case strings.HasPrefix(a, "mdutil -s "):
		return ok(argv[2] + ":\n\tIndexing disabled.\n")
	case len(argv) == 5 && argv[0] == "xattr" && argv[1] == "-w" && argv[2] == "com.apple.provenance":
		return fail(1, "xattr: [Errno 1] Operation not permitted: '"+argv[4]+"'\n")
	case len(argv) == 3 && argv[0] == "xattr" && argv[1] == "-l":
		return ok("")
	case len(argv) == 3 && argv[0] == "launchctl" && argv[1] == "print":
		return fail(113, "Could not find service \""+bundleID+"\" in domain for user gui: 501\n")
	case a == "launchctl print-disabled gui/501":
		return ok("disabled services = {\n}\nlogin item associations = {\n}\n")
	case strings.HasPrefix(a, "diskutil image attach --noMount"):
		if f.diskutilBroken || f.major() < 13 {
			if f.diskutilWords != "" {
				return runtest.Reply{Stderr: f.diskutilWords, Exit: 1}
			}
			return runtest.Reply{Stdout: "Usage:  diskutil [quiet] <verb> <options>\n", Exit: 1}
		}
		im := f.attachImage(argv[len(argv)-1], strings.Contains(a, "--nobrowse"))
		im.viaDiskutil = true
		switch {
		case f.diskutilFailsAfter:
			return fail(1, "Error: -69842: Couldn't open device\n")
		case f.attachGarbage:
			return ok("Attached.\n")
		}
		return ok(fmt.Sprintf("/dev/disk%d\n", im.n))
	case strings.HasPrefix(a, "hdiutil attach -nomount"):
		im := f.attachImage(argv[len(argv)-1], strings.Contains(a, "-nobrowse"))
		if f.hdiutilFailsAfter {
			return f.warn(fail(1, "hdiutil: attach failed - Resource temporarily unavailable\n"), "attach")
		}
		if f.attachGarbage {
			return f.warn(ok("\t\n"), "attach")
		}
		return f.warn(ok(fmt.Sprintf("%-20s\t%-31s\t\n", fmt.Sprintf("/dev/disk%d", im.n), "")), "attach")
	case len(argv) == 5 && argv[0] == "diskutil" && argv[1] == "erasevolume":
		return f.erase(argv[2], argv[3], argv[4])
	case len(argv) == 4 && a[:len("diskutil info -plist")] == "diskutil info -plist":
		return f.info(argv[3])
	case a == "hdiutil info -plist":
		return f.hdiutilInfo()
	case a == "diskutil list -plist":
		return f.list()
	case a == "mount":
		return f.mountTable()
	case len(argv) == 3 && argv[0] == "diskutil" && argv[1] == "eject":
		return f.eject(argv[2])
	case len(argv) == 4 && strings.HasPrefix(a, "diskutil unmountDisk force"):
		im, found := f.find(argv[3])
		if !found {
			return fail(1, "Unable to find disk for "+argv[3]+"\n")
		}
		f.unmount(im)
		return ok(fmt.Sprintf("Forced unmount of all volumes on disk%d was successful\n", im.n))
	case argv[0] == "hdiutil" && argv[1] == "detach":
		return f.warn(f.hdiutilDetach(argv[len(argv)-1], argv[2] == "-force"), "detach")
	case strings.HasPrefix(a, "lsof -F pc +f -- "):
		hs := f.holders[argv[len(argv)-1]]
		if len(hs) == 0 {
			return runtest.Reply{Exit: 1}
		}
		var b strings.Builder
		for _, h := range hs {
			fmt.Fprintf(&b, "p%d\nc%s\nfcwd\n", h.PID, h.Command)
		}
		return ok(b.String())
	case strings.HasPrefix(a, "mdutil -i off "):
		return runtest.Reply{Stdout: argv[3] + ":\n\tIndexing disabled.\n", Stderr: "2026-11-29 12:00:00.000 mdutil[1083:6592] mdutil disabling Spotlight: " + argv[3] + " -> kMDConfigSearchLevelFSSearchOnly\n"}
	case strings.HasPrefix(a, "footprint -f bytes --noCategories "):
		if f.noFootprint {
			return fail(1, "footprint: command not found\n")
		}
		im, found := f.byPID(argv[4])
		if !found {
			return fail(1, "footprint: no process with pid "+argv[4]+"\n")
		}
		h := f.held(im)
		return ok(fmt.Sprintf("%s\ndiskimages-helper [%d]: 64-bit    Footprint: %d B (16384 bytes per page)\n%s\n\nAuxiliary data:\n    phys_footprint: %d B\n    phys_footprint_peak: %d B\n\n",
			strings.Repeat("=", 70), im.pid, h-32768, strings.Repeat("=", 70), h, h))
	case strings.HasPrefix(a, "ps -o rss= -p "):
		im, found := f.byPID(argv[4])
		if !found {
			return runtest.Reply{Exit: 1}
		}
		return ok(fmt.Sprintf(" %d\n", f.held(im)/1024))
	case a == "vm_stat":
		return ok(f.testdata("vm_stat-applesilicon-32g.txt"))
	case a == "sysctl hw.memsize":
		if f.noMemsize {
			return fail(1, "sysctl: unknown oid 'hw.memsize'\n")
		}
		return ok("hw.memsize: 34359738368\n")
	case a == "sysctl hw.memsize vm.swapusage":
		return ok("hw.memsize: 34359738368\n" + f.testdata("sysctl-swapusage-memo.txt"))
	case a == "sysctl -n kern.memorystatus_vm_pressure_level":
		return ok("1\n")
	case strings.HasPrefix(a, "memory_pressure"):
		return ok(f.testdata("memory_pressure-applesilicon-32g.txt"))
	case argv[0] == "osascript":
		return f.osascript(argv)
	case argv[0] == "ditto":
		return ok("")
	}
	f.t.Errorf("fake Mac: unexpected call %q", argv)
	return fail(127, "unexpected call\n")
}

func (f *fakeMac) testdata(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

func (f *fakeMac) attachImage(url string, hidden bool) *fakeImage {
	n, _ := strconv.ParseInt(strings.TrimPrefix(url, "ram://"), 10, 64)
	im := &fakeImage{n: f.next, sectors: n, pid: f.nextPID, hidden: hidden}
	f.next++
	f.nextPID++
	f.images[im.n] = im
	return im
}

func (f *fakeMac) byPID(s string) (*fakeImage, bool) {
	pid, _ := strconv.Atoi(s)
	for _, im := range f.images {
		if im.pid == pid {
			return im, true
		}
	}
	return nil, false
}

// held is the helper's footprint: the whole disk under 4 GiB, else what was
// ever written; plus 9 MB of its own.
func (f *fakeMac) held(im *fakeImage) int64 {
	if im.mp != "" {
		im.highWater = max(im.highWater, used(im.mp))
	}
	if im.size() < 4<<30 {
		return im.size() + 9<<20
	}
	return im.highWater + 9<<20
}

func (f *fakeMac) erase(format, name, dev string) runtest.Reply {
	im, found := f.find(dev)
	if !found || dev != fmt.Sprintf("/dev/disk%d", im.n) {
		return runtest.Reply{Stderr: "Could not find disk: " + dev + "\n", Exit: 1}
	}
	out := fmt.Sprintf("Started erase on disk%d\nUnmounting disk\nErasing\n", im.n)
	if f.failErase != "" {
		return runtest.Reply{Stdout: out, Stderr: f.failErase, Exit: 1}
	}
	im.name, im.format = name, format
	f.uuids++
	im.uuid = fmt.Sprintf("5A3C0B1E-%04X-4E7F-9A2B-%012X", f.uuids, im.n)
	apfs := strings.HasPrefix(format, "APFS")
	if apfs {
		im.container = f.next
		f.next++
		out += fmt.Sprintf("Creating a new empty APFS Container\nUnmounting Volumes\nSwitching disk%d to APFS\nCreating APFS Container\nCreated new APFS Container disk%d\nPreparing to add APFS Volume to APFS Container disk%d\nCreating APFS Volume\nCreated new APFS Volume disk%ds1\nMounting APFS Volume\nSetting volume permissions\n",
			im.n, im.container, im.container, im.container)
	} else {
		journal := ""
		if strings.HasPrefix(format, "J") {
			journal = " with a 512k journal"
		}
		out += fmt.Sprintf("Initialized /dev/rdisk%d as a %d MB case-insensitive HFS Plus volume%s\nMounting disk\n", im.n, im.size()>>20, journal)
	}
	if !f.failMount {
		mp := filepath.Join(f.root, name)
		for i := 1; dirExists(mp); i++ {
			mp = filepath.Join(f.root, fmt.Sprintf("%s %d", name, i))
		}
		if err := os.Mkdir(mp, 0o755); err != nil {
			f.t.Fatal(err)
		}
		im.mp = mp
	}
	return ok(out + fmt.Sprintf("Finished erase on disk%d (%s)\n", im.n, name))
}

func dirExists(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }

func plistOut(v any) string {
	b, err := plist.MarshalIndent(v, plist.XMLFormat, "\t")
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

func (f *fakeMac) info(target string) runtest.Reply {
	im, found := f.find(target)
	if !found {
		if st, err := os.Stat(target); err == nil && st.IsDir() && strings.HasPrefix(target, f.root) {
			// A folder on the root volume: diskutil describes that volume.
			return ok(plistOut(map[string]any{"DeviceIdentifier": "disk3s1s1", "MountPoint": "/", "VolumeName": "Macintosh HD", "BusProtocol": "Apple Fabric", "FilesystemType": "apfs"}))
		}
		return runtest.Reply{Stdout: plistOut(map[string]any{"Error": true, "ErrorMessage": "Could not find disk: " + target, "ExitCode": 1}), Exit: 1}
	}
	id := strings.TrimPrefix(target, "/dev/")
	d := map[string]any{"BusProtocol": "Disk Image", "Internal": false, "VirtualOrPhysical": "Virtual"}
	whole := fmt.Sprintf("disk%d", im.n)
	isVolume := id == im.volID() || (im.mp != "" && target == im.mp)
	if im.container > 0 && id == whole {
		// The ram:// device under an APFS container: no file system of its own.
		d["DeviceIdentifier"], d["WholeDisk"], d["Size"], d["Content"] = whole, true, im.size(), "Apple_APFS"
		return ok(plistOut(d))
	}
	if !isVolume && im.container > 0 {
		d["DeviceIdentifier"], d["WholeDisk"], d["Size"], d["Content"] = fmt.Sprintf("disk%d", im.container), true, im.size(), "EF57347C-0000-11AA-AA11-00306543ECAC"
		return ok(plistOut(d))
	}
	d["DeviceIdentifier"] = im.volID()
	d["DeviceNode"] = "/dev/" + im.volID()
	d["WholeDisk"] = im.container == 0
	d["ParentWholeDisk"] = whole
	u := int64(0)
	if im.mp != "" {
		u = used(im.mp)
		im.highWater = max(im.highWater, u)
	}
	d["MountPoint"] = im.mp // "" when unmounted: diskutil still describes the file system
	d["VolumeName"] = im.name
	d["GlobalPermissionsEnabled"] = false
	d["TotalSize"] = im.size()
	cs := strings.HasSuffix(im.format, "X")
	if im.format == "" {
		return ok(plistOut(d)) // never erased: no file system
	}
	d["VolumeUUID"] = im.uuid
	if im.container > 0 {
		d["ParentWholeDisk"] = fmt.Sprintf("disk%d", im.container)
		d["APFSContainerReference"] = fmt.Sprintf("disk%d", im.container)
		d["APFSContainerSize"] = im.size()
		d["APFSContainerFree"] = im.size() - u - 20480
		d["APFSPhysicalStores"] = []map[string]any{{"APFSPhysicalStore": whole}}
		d["FreeSpace"] = 0
		d["VolumeSize"] = 0
		d["FilesystemType"] = "apfs"
		d["FilesystemName"], d["FilesystemUserVisibleName"] = "APFS", "APFS"
		if cs {
			d["FilesystemName"], d["FilesystemUserVisibleName"] = "Case-sensitive APFS", "APFS (Case-sensitive)"
		}
	} else {
		d["FreeSpace"] = im.size() - u - 8<<20
		d["FilesystemType"] = "hfs"
		switch im.format {
		case "JHFS+":
			d["FilesystemName"], d["FilesystemUserVisibleName"] = "Journaled HFS+", "Mac OS Extended (Journaled)"
		case "HFSX":
			d["FilesystemName"], d["FilesystemUserVisibleName"] = "Case-sensitive HFS+", "Mac OS Extended (Case-sensitive)"
		default:
			d["FilesystemName"], d["FilesystemUserVisibleName"] = "HFS+", "Mac OS Extended"
		}
	}
	return ok(plistOut(d))
}

func (f *fakeMac) sorted() []*fakeImage {
	var ims []*fakeImage
	for _, im := range f.images {
		ims = append(ims, im)
	}
	sort.Slice(ims, func(i, j int) bool { return ims[i].n < ims[j].n })
	return ims
}

func (f *fakeMac) hdiutilInfo() runtest.Reply {
	doc := map[string]any{"framework": "683.160.3", "revision": "683.160.3", "vendor": "Apple"}
	var images []map[string]any
	for _, im := range f.sorted() {
		if im.viaDiskutil && f.hideDiskutil {
			continue
		}
		ents := []map[string]any{{"content-hint": "", "dev-entry": fmt.Sprintf("/dev/disk%d", im.n)}}
		if im.container > 0 {
			ents = append(ents, map[string]any{"content-hint": "EF57347C-0000-11AA-AA11-00306543ECAC", "dev-entry": fmt.Sprintf("/dev/disk%d", im.container)})
			v := map[string]any{"content-hint": "41504653-0000-11AA-AA11-00306543ECAC", "dev-entry": "/dev/" + im.volID()}
			if im.mp != "" {
				v["mount-point"] = im.mp
			}
			ents = append(ents, v)
		} else if im.mp != "" {
			ents[0]["mount-point"] = im.mp
		}
		if f.reverseEnts {
			for i, j := 0, len(ents)-1; i < j; i, j = i+1, j-1 {
				ents[i], ents[j] = ents[j], ents[i]
			}
		}
		images = append(images, map[string]any{
			"autodiskmount": false, "blockcount": im.sectors, "blocksize": 512, "diskimages2": false,
			"hdid-pid": im.pid, "image-path": fmt.Sprintf("ram://%d", im.sectors), "image-type": "read/write",
			"owner-uid": 501, "removable": true, "writeable": true, "system-entities": ents,
		})
	}
	if len(images) > 0 { // macOS 15 leaves the key out when nothing is attached
		doc["images"] = images
	}
	return ok(plistOut(doc))
}

func (f *fakeMac) list() runtest.Reply {
	var all []map[string]any
	var ids []string
	for _, im := range f.sorted() {
		w := map[string]any{"DeviceIdentifier": fmt.Sprintf("disk%d", im.n), "Content": "", "OSInternal": false, "Size": im.size()}
		ids = append(ids, fmt.Sprintf("disk%d", im.n))
		if im.container == 0 && im.mp != "" {
			w["MountPoint"], w["VolumeName"] = im.mp, im.name
		}
		all = append(all, w)
		if im.container > 0 {
			vol := map[string]any{"DeviceIdentifier": im.volID(), "VolumeName": im.name, "Size": im.size()}
			if im.mp != "" {
				vol["MountPoint"] = im.mp
			}
			all = append(all, map[string]any{"DeviceIdentifier": fmt.Sprintf("disk%d", im.container), "Content": "EF57347C-0000-11AA-AA11-00306543ECAC",
				"OSInternal": false, "Size": im.size(), "APFSVolumes": []map[string]any{vol},
				"APFSPhysicalStores": []map[string]any{{"DeviceIdentifier": fmt.Sprintf("disk%d", im.n)}}})
			ids = append(ids, fmt.Sprintf("disk%d", im.container), im.volID())
		}
	}
	return ok(plistOut(map[string]any{"AllDisks": ids, "AllDisksAndPartitions": all, "VolumesFromDisks": []string{}, "WholeDisks": ids}))
}

func (f *fakeMac) mountTable() runtest.Reply {
	var b strings.Builder
	b.WriteString("/dev/disk3s1s1 on / (apfs, sealed, local, read-only, journaled)\ndevfs on /dev (devfs, local, nobrowse)\n")
	for _, im := range f.sorted() {
		if im.mp == "" {
			continue
		}
		fsn := "hfs"
		if im.container > 0 {
			fsn = "apfs"
		}
		opts := "local, nodev, nosuid, journaled, noowners"
		if im.hidden {
			opts += ", nobrowse"
		}
		fmt.Fprintf(&b, "/dev/%s on %s (%s, %s, mounted by alice)\n", im.volID(), im.mp, fsn, opts)
	}
	var tm []string
	for mp := range f.tmpfs {
		tm = append(tm, mp)
	}
	sort.Strings(tm)
	for _, mp := range tm {
		fmt.Fprintf(&b, "tmpfs on %s (tmpfs, local, nodev, nosuid, mounted by root)\n", mp)
	}
	return ok(b.String())
}

func (f *fakeMac) unmount(im *fakeImage) {
	if im.mp == "" {
		return
	}
	// The volume's files stay with it until it is mounted again.
	stash := f.stash(im)
	os.MkdirAll(stash, 0o700)
	ents, _ := os.ReadDir(im.mp)
	for _, e := range ents {
		os.Rename(filepath.Join(im.mp, e.Name()), filepath.Join(stash, e.Name()))
	}
	if im.below == "" {
		os.RemoveAll(im.mp)
	} else { // the folder of the user's stays, with what it held below the volume
		ents, _ := os.ReadDir(im.mp)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(im.mp, e.Name()))
		}
		ents, _ = os.ReadDir(im.below)
		for _, e := range ents {
			os.Rename(filepath.Join(im.below, e.Name()), filepath.Join(im.mp, e.Name()))
		}
		os.Remove(im.below)
		im.below = ""
	}
	im.mp = ""
}

// stash is where an unmounted volume's files wait (outside every mount point).
func (f *fakeMac) stash(im *fakeImage) string {
	return filepath.Join(filepath.Dir(f.root), fmt.Sprintf(".fake-volume-%d", im.n))
}

// remounted puts the files an unmounted volume kept back on it.
func (f *fakeMac) remounted(im *fakeImage) {
	stash := f.stash(im)
	ents, _ := os.ReadDir(stash)
	for _, e := range ents {
		os.Rename(filepath.Join(stash, e.Name()), filepath.Join(im.mp, e.Name()))
	}
	os.Remove(stash)
}

func (f *fakeMac) eject(dev string) runtest.Reply {
	im, found := f.find(dev)
	if !found {
		return fail(1, "Unable to find disk for "+dev+"\n")
	}
	if hs := f.holders[im.mp]; im.mp != "" && len(hs) > 0 {
		if f.busyStyle == "other" {
			return runtest.Reply{Stderr: "Error: -69825: Wrapped error\n", Exit: 1}
		}
		if f.busyStyle == "69888" {
			return runtest.Reply{Stdout: "Unmount of disk" + strconv.Itoa(im.n) + " failed\n", Stderr: "Error: -69888: Couldn't unmount disk\n", Exit: 1}
		}
		return runtest.Reply{Stdout: fmt.Sprintf("Disk %s failed to eject: dissented by PID %d (/usr/bin/%s)\nDissenter parent PPID 1 (/sbin/launchd)\n", dev, hs[0].PID, hs[0].Command), Exit: 1}
	}
	f.unmount(im)
	delete(f.images, im.n)
	return ok("Disk " + dev + " ejected\n")
}

func (f *fakeMac) hdiutilDetach(dev string, force bool) runtest.Reply {
	im, found := f.find(dev)
	if !found {
		return fail(1, "hdiutil: detach failed - No such file or directory\n")
	}
	if hs := f.holders[im.mp]; im.mp != "" && len(hs) > 0 && !force {
		switch f.detachBusy {
		case "exit2":
			return fail(2, fmt.Sprintf("hdiutil: couldn't unmount \"disk%d\" - Resource busy\n", im.n))
		case "other":
			return fail(1, "hdiutil: detach failed - Operation not permitted\n")
		}
		return fail(16, fmt.Sprintf("hdiutil: couldn't unmount \"disk%d\" - Resource busy\n", im.n))
	}
	f.unmount(im)
	delete(f.images, im.n)
	return ok(fmt.Sprintf("\"disk%d\" ejected.\n", im.n))
}

func (f *fakeMac) osascript(argv []string) runtest.Reply {
	if f.osaCancel {
		return fail(1, "0:212: execution error: User canceled. (-128)\n")
	}
	i := len(argv) - 1
	for i >= 0 && argv[i] != "--" {
		i--
	}
	args := argv[i+1:]
	script := strings.Join(argv[:i], "\n")
	switch {
	case strings.Contains(script, "/sbin/mount_tmpfs") && len(args) == 3:
		mp := args[0]
		size, err := strconv.ParseInt(args[1], 10, 64)
		if err != nil {
			return fail(1, "0:300: execution error: mount_tmpfs: bad size (64)\n")
		}
		if err := os.MkdirAll(mp, 0o755); err != nil {
			return fail(1, "0:300: execution error: mkdir: "+err.Error()+" (1)\n")
		}
		f.tmpfs[mp] = min(size, 16<<30) // mount_tmpfs caps at half of the 32 GiB silently (TmpDisk #36)
		return ok("")
	case strings.Contains(script, "/sbin/umount") && len(args) == 2:
		mp := args[1]
		if _, mounted := f.tmpfs[mp]; !mounted {
			return fail(1, "0:300: execution error: umount: "+mp+": not currently mounted (1)\n")
		}
		if len(f.holders[mp]) > 0 && args[0] != "force" {
			return fail(1, "0:300: execution error: umount: unmount("+mp+"): Resource busy (1)\n")
		}
		delete(f.tmpfs, mp)
		os.RemoveAll(mp)
		return ok("")
	}
	f.t.Errorf("fake Mac: unexpected osascript %q", argv)
	return fail(1, "0:1: execution error: unexpected (-2753)\n")
}
