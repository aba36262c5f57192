package darwin

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseAttach(t *testing.T) {
	tests := []struct {
		file, want string
	}{
		{"hdiutil-attach-10.13.txt", "/dev/disk3"},
		{"hdik-attach-ios.txt", "/dev/disk3"},
		{"hdiutil-attach-dmg-apfs.txt", "/dev/disk3"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := ParseAttach(read(t, tt.file))
			if err != nil || got != tt.want {
				t.Errorf("ParseAttach = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// diskutil image attach prints the bare device.
	if got, err := ParseAttach([]byte("/dev/disk4\n")); err != nil || got != "/dev/disk4" {
		t.Errorf("bare device: %q, %v", got, err)
	}
	if _, err := ParseAttach(read(t, "hdiutil-attach-failed.txt")); err == nil {
		t.Errorf("failure text parsed as a device")
	}
}

func TestDeprecationWarning(t *testing.T) {
	for _, f := range []string{"hdiutil-attach-deprecated-27.stderr", "hdiutil-detach-deprecated-27.stderr"} {
		b := read(t, f)
		if !Deprecated(b) {
			t.Errorf("%s: not recognised as the deprecation warning", f)
		}
		if got := stripWarnings(string(b) + "hdiutil: detach failed - Resource busy\n"); got != "hdiutil: detach failed - Resource busy" {
			t.Errorf("%s: stripWarnings left %q", f, got)
		}
	}
}

func TestParseInfoText(t *testing.T) {
	tests := []struct {
		file               string
		images             int
		ram                int // index of the ram:// image to check, -1 none
		path               string
		pid                int
		blocks             int64
		dev, volDev, mount string
		entities           int
	}{
		{"hdiutil-info-10.12-fr.txt", 1, -1, "", 0, 0, "", "", "", 0},
		{"hdiutil-info-10.14-zh-ram.txt", 1, 0, "ram://838860", 70907, 838860, "/dev/disk4", "/dev/disk5s1", "/Volumes/Test", 4},
		{"hdiutil-info-15-ram.txt", 3, 1, "ram://16777216", 91006, 16777216, "/dev/disk138", "/dev/disk139s1", "/Volumes/smoo-ram-502 1", 3},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			ims, err := ParseInfoText(read(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(ims) != tt.images {
				t.Fatalf("%d images, want %d: %+v", len(ims), tt.images, ims)
			}
			if tt.ram < 0 {
				if ims[0].IsRAM() || ims[0].HelperPID != 99124 || ims[0].BlockCount != 6183 {
					t.Errorf("dmg image read as %+v", ims[0])
				}
				if e, ok := ims[0].Mounted(); !ok || e.MountPoint != "/Volumes/Installez Facture 1.2.4" {
					t.Errorf("mount point with spaces: %+v", e)
				}
				return
			}
			im := ims[tt.ram]
			if !im.IsRAM() || im.Path != tt.path || im.HelperPID != tt.pid || im.BlockCount != tt.blocks {
				t.Errorf("image %+v", im)
			}
			if im.Device() != tt.dev || len(im.Entities) != tt.entities {
				t.Errorf("device %q (%d entities), want %q (%d)", im.Device(), len(im.Entities), tt.dev, tt.entities)
			}
			if e, ok := im.Mounted(); !ok || e.Dev != tt.volDev || e.MountPoint != tt.mount {
				t.Errorf("mounted %+v, want %s at %q", e, tt.volDev, tt.mount)
			}
		})
	}
	// 15.x: the third image (another ram://, root's) has no pid line.
	ims, _ := ParseInfoText(read(t, "hdiutil-info-15-ram.txt"))
	if ims[2].HelperPID != 0 || !ims[2].IsRAM() || ims[2].Device() != "/dev/disk159" {
		t.Errorf("third image %+v", ims[2])
	}
	if !ims[0].DiskImages2 || ims[1].DiskImages2 {
		t.Errorf("framework name not read: %+v / %+v", ims[0], ims[1])
	}
}

func TestParseInfoPlist(t *testing.T) {
	ims, err := ParseInfoPlist(read(t, "hdiutil-info-10.13-ram.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ims) != 1 {
		t.Fatalf("%d images", len(ims))
	}
	im := ims[0]
	if !im.IsRAM() || im.HelperPID != 73094 || im.OwnerUID != 501 || im.Size() != 4194304*512 || im.Device() != "/dev/disk2" {
		t.Errorf("image %+v", im)
	}
	if _, ok := im.Mounted(); ok {
		t.Errorf("unmounted image reported mounted")
	}
	ims, err = ParseInfoPlist(read(t, "hdiutil-info-15-empty.plist"))
	if err != nil || len(ims) != 0 {
		t.Errorf("empty (no images key): %v, %v", ims, err)
	}
	if _, err := ParseInfoPlist([]byte("hdiutil: info failed - Permission denied")); err == nil {
		t.Errorf("garbage accepted")
	}
}

func TestParseDiskInfo(t *testing.T) {
	d, err := ParseDiskInfo(read(t, "diskutil-info-apfs-10.15.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsAPFS() || d.MountPoint != "/" || d.VolumeName != "Macintosh HD" || d.FreeSpace != 0 || d.IsDiskImage() {
		t.Errorf("apfs internal: %+v", d)
	}
	if d.Free() != d.APFSContainerFree || d.Free() <= 0 {
		t.Errorf("Free %d, want APFSContainerFree %d", d.Free(), d.APFSContainerFree)
	}
	if d.GlobalPermissionsEnabled == nil || !*d.GlobalPermissionsEnabled || fsOf(d) != "apfs" {
		t.Errorf("permissions/fs: %+v", d)
	}
	d, err = ParseDiskInfo(read(t, "diskutil-info-diskimage-apfs.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsDiskImage() || !d.IsAPFS() || d.MountPoint != "/Volumes/CMDR1" || len(d.Stores()) != 1 || d.Stores()[0] != "disk5s1" {
		t.Errorf("disk image volume: %+v", d)
	}
	_, err = ParseDiskInfo(read(t, "diskutil-info-error.plist"))
	if !errors.Is(err, ErrNoDisk) || err.Error() != "could not find disk: Could not find disk: /Volumes/SMB" {
		t.Errorf("error plist: %v", err)
	}
}

func TestParseList(t *testing.T) {
	l, err := ParseList(read(t, "diskutil-list-tart.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.WholeDisks) != 2 || len(l.AllDisksAndPartitions) != 2 || len(l.AllDisksAndPartitions[0].Partitions) != 2 {
		t.Errorf("list %+v", l)
	}
	if e := l.AllDisksAndPartitions[1]; e.DeviceIdentifier != "disk2" || e.Content != "" || e.Size != 107164426240 {
		t.Errorf("unpartitioned whole disk %+v", e)
	}
	if len(l.Mounted()) != 0 {
		t.Errorf("nothing is mounted in this capture: %v", l.Mounted())
	}
}

func TestParseErase(t *testing.T) {
	tests := []struct{ file, want string }{
		{"diskutil-erasevolume-hfs-11.txt", "disk7"},
		{"diskutil-erasevolume-hfs-b.txt", "disk2"},
		{"diskutil-erasevolume-hfs-old.txt", "disk4"},
		{"diskutil-apfs-block-diskutility.txt", "disk5s1"},
		{"diskutil-apfs-addvolume.txt", "disk5s2"},
	}
	for _, tt := range tests {
		if got := ParseErase(read(t, tt.file)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestBusyParsers(t *testing.T) {
	if c := DiskutilCode(read(t, "diskutil-69888-10.7.txt")); c != CodeBusy {
		t.Errorf("code %d", c)
	}
	if c := DiskutilCode(read(t, "diskutil-eject.txt")); c != 0 {
		t.Errorf("success has code %d", c)
	}
	ps := Dissenters(read(t, "diskutil-unmount-dissent.txt"))
	if len(ps) != 1 || ps[0].PID != 632 || ps[0].Command != "QuickLookUIService" {
		t.Errorf("dissenters %+v", ps)
	}
	ps = Dissenters([]byte("Volume X on disk9s1 failed to unmount: dissented by PID 29138 (diskimages-helper)"))
	if len(ps) != 1 || ps[0].PID != 29138 || ps[0].Command != "diskimages-helper" {
		t.Errorf("helper dissent %+v", ps)
	}
	for _, f := range []string{"hdiutil-detach-busy-10.14.txt", "hdiutil-detach-busy-old.txt"} {
		if s := stripWarnings(string(read(t, f))); s == "" {
			t.Errorf("%s: words lost", f)
		}
	}
}

func TestParseMemory(t *testing.T) {
	tests := []struct {
		file              string
		page, free, compr int64
		avail             int64
	}{
		{"vm_stat-applesilicon-32g.txt", 16384, 130912, 153447, (130912 + 805511 + 21894) * 16384},
		{"vm_stat-intel-10.15.txt", 4096, 1577393, 0, (1577393 + 672072 + 411970) * 4096},
	}
	for _, tt := range tests {
		v, err := ParseVMStat(read(t, tt.file))
		if err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		if v.PageSize != tt.page || v.Pages["Pages free"] != tt.free || v.Pages["Pages occupied by compressor"] != tt.compr || v.Available() != tt.avail {
			t.Errorf("%s: %+v avail %d", tt.file, v.PageSize, v.Available())
		}
		if v.Pages["Translation faults"] == 0 {
			t.Errorf("%s: quoted row lost", tt.file)
		}
	}
	if _, err := ParseVMStat([]byte("Pages free: 1.\n")); err == nil {
		t.Errorf("vm_stat without header accepted")
	}
	s := ParseSysctl(read(t, "sysctl-memsize-26.3.txt"))
	if n, err := s.MemSize(); err != nil || n != 17179869184 {
		t.Errorf("memsize %d %v", n, err)
	}
	swaps := []struct {
		file        string
		total, used int64
	}{
		{"sysctl-swapusage-memo.txt", 2048 << 20, int64(1462.5 * (1 << 20))},
		{"sysctl-swapusage-xcode26.txt", 23552 << 20, 23480300994}, // 22392.56 MiB
	}
	for _, tt := range swaps {
		w, err := ParseSwap(ParseSysctl(read(t, tt.file))["vm.swapusage"])
		if err != nil || w.Total != tt.total || w.Used != tt.used {
			t.Errorf("%s: %+v %v", tt.file, w, err)
		}
	}
	if w, err := ParseSwap("total = 0.00M  used = 0.00M  free = 0.00M  (encrypted)"); err != nil || w.Total != 0 {
		t.Errorf("no swap: %+v %v", w, err)
	}
	p, err := ParsePressure(read(t, "memory_pressure-applesilicon-32g.txt"))
	if err != nil || p.Physical != 34359738368 || p.PageSize != 16384 || p.FreePercent != 86 {
		t.Errorf("memory_pressure %+v %v", p, err)
	}
	p, err = ParsePressure(read(t, "memory_pressure-Q-xcode26.txt"))
	if err != nil || p.Physical != 17179869184 || p.PageSize != 0 || p.FreePercent != 40 {
		t.Errorf("memory_pressure -Q %+v %v", p, err)
	}
	for in, want := range map[string]string{"1\n": "normal", "2": "warn", "4": "critical", "x": ""} {
		if got := PressureLevel(in); got != want {
			t.Errorf("PressureLevel(%q) = %q", in, got)
		}
	}
}

func TestParseFootprint(t *testing.T) {
	fs, err := ParseFootprintText(read(t, "footprint-categories.txt"))
	if err != nil || len(fs) != 1 {
		t.Fatalf("%+v %v", fs, err)
	}
	if f := fs[0]; f.Name != "Asterism" || f.PID != 812 || f.Footprint != 6939<<20 || f.Phys != 491520<<10 || f.Peak != 7273472<<10 || f.Bytes() != 491520<<10 {
		t.Errorf("categories report %+v", f)
	}
	fs, err = ParseFootprintText(read(t, "footprint-bytes-two.txt"))
	if err != nil || len(fs) != 2 {
		t.Fatalf("%+v %v", fs, err)
	}
	if fs[0].PID != 103 || fs[0].Phys != 253937248 || fs[1].Name != "Share" || fs[1].Footprint != 2244968 {
		t.Errorf("two processes %+v", fs)
	}
	js, err := ParseFootprintJSON(read(t, "footprint-8613.json"))
	if err != nil || len(js) != 1 || js[0].PID != 8613 || js[0].Footprint != 1211074672 || js[0].PageSize != 16384 || js[0].Bytes() != 1211074672 {
		t.Errorf("json %+v %v", js, err)
	}
	if _, err := ParseFootprintText([]byte("footprint: no processes matched\n")); err == nil {
		t.Errorf("empty report accepted")
	}
	if n, err := ParseRSS([]byte(" 26144\n")); err != nil || n != 26144*1024 {
		t.Errorf("rss %d %v", n, err)
	}
	if _, err := ParseRSS(nil); err == nil {
		t.Errorf("empty rss accepted")
	}
}

func TestParseMisc(t *testing.T) {
	if !ParseMdutil(read(t, "mdutil-off-monterey.txt")) {
		t.Errorf("mdutil: indexing disabled not seen")
	}
	text, code, ok := ParseOsascriptError(read(t, "osascript-cancel.txt"))
	if !ok || code != OsaCancelled || text != "User canceled." {
		t.Errorf("osascript cancel: %q %d %v", text, code, ok)
	}
	if _, code, ok := ParseOsascriptError([]byte("0:300: execution error: hdiutil: couldn't eject \"disk4\" - Resource busy (16)\n")); !ok || code != 16 {
		t.Errorf("shell status not read: %d %v", code, ok)
	}
	ps := ParseLsofF([]byte("p501\ncvim\nfcwd\nf4\np502\ncmy app\nfcwd\np501\ncvim\n"))
	if len(ps) != 2 || ps[0] != (Proc{501, "vim"}) || ps[1] != (Proc{502, "my app"}) {
		t.Errorf("lsof %+v", ps)
	}
	ms := ParseMount([]byte("/dev/disk5s1 on /Volumes/RAM Disk 1 (apfs, local, nodev, nosuid, journaled, noowners, nobrowse, mounted by alice)\ntmpfs on /Volumes/T (tmpfs, local)\nmap auto_home on /System/Volumes/Data/home (autofs, automounted, nobrowse)\n"))
	if len(ms) != 3 || ms[0].MountPoint != "/Volumes/RAM Disk 1" || ms[0].FSType != "apfs" || ms[0].Options[5] != "nobrowse" || ms[1].FSType != "tmpfs" || ms[2].Source != "map auto_home" {
		t.Errorf("mount %+v", ms)
	}
	for in, want := range map[string]int{"26.4.1\n": 26, "10.15.7": 10, "27.0": 27} {
		if n, ok := macOSMajor(in); !ok || n != want {
			t.Errorf("macOSMajor(%q) = %d", in, n)
		}
	}
}
