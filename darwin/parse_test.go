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
			got, err := parseAttach(read(t, tt.file))
			if err != nil || got != tt.want {
				t.Errorf("parseAttach = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	// diskutil image attach prints the bare device.
	if got, err := parseAttach([]byte("/dev/disk4\n")); err != nil || got != "/dev/disk4" {
		t.Errorf("bare device: %q, %v", got, err)
	}
	if _, err := parseAttach(read(t, "hdiutil-attach-failed.txt")); err == nil {
		t.Errorf("failure text parsed as a device")
	}
}

func TestDeprecationWarning(t *testing.T) {
	for _, f := range []string{"hdiutil-attach-deprecated-27.stderr", "hdiutil-detach-deprecated-27.stderr"} {
		b := read(t, f)
		if !isDeprecated(b) {
			t.Errorf("%s: not recognised as the deprecation warning", f)
		}
		if got := stripWarnings(string(b) + "hdiutil: detach failed - Resource busy\n"); got != "hdiutil: detach failed - Resource busy" {
			t.Errorf("%s: stripWarnings left %q", f, got)
		}
	}
}

func TestParseInfoPlist(t *testing.T) {
	ims, err := parseInfoPlist(read(t, "hdiutil-info-10.13-ram.plist"))
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
	ims, err = parseInfoPlist(read(t, "hdiutil-info-15-empty.plist"))
	if err != nil || len(ims) != 0 {
		t.Errorf("empty (no images key): %v, %v", ims, err)
	}
	if _, err := parseInfoPlist([]byte("hdiutil: info failed - Permission denied")); err == nil {
		t.Errorf("garbage accepted")
	}
}

// TestWholeDiskByRole: the whole disk is the entity without a partition
// suffix that is not a synthesized APFS container, wherever it is listed.
func TestWholeDiskByRole(t *testing.T) {
	ims, err := parseInfoPlist(read(t, "hdiutil-info-entity-order.plist"))
	if err != nil || len(ims) != 2 {
		t.Fatalf("%d images, %v", len(ims), err)
	}
	for i, want := range []string{"/dev/disk4", "/dev/disk3"} {
		if got := ims[i].Device(); got != want {
			t.Errorf("image %d (%s): whole disk %q, want %q", i, ims[i].Path, got, want)
		}
	}
	if (hdImage{Entities: []entity{{Dev: "/dev/disk9s1"}}}).Device() != "" {
		t.Errorf("a partition alone was taken for the whole disk")
	}
}

func TestParseDiskInfo(t *testing.T) {
	d, err := parseDiskInfo(read(t, "diskutil-info-apfs-10.15.plist"))
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
	if id := d.Identity(); id != "macos:uuid=A0DB31C6-609F-439A-A883-AD5F057A2A20" {
		t.Errorf("identity %q, want the VolumeUUID", id)
	}
	d, err = parseDiskInfo(read(t, "diskutil-info-diskimage-apfs.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if !d.IsDiskImage() || !d.IsAPFS() || d.MountPoint != "/Volumes/CMDR1" || len(d.Stores()) != 1 || d.Stores()[0] != "disk5s1" {
		t.Errorf("disk image volume: %+v", d)
	}
	if id := d.Identity(); id != "" {
		t.Errorf("identity %q of a plist without VolumeUUID", id)
	}
	_, err = parseDiskInfo(read(t, "diskutil-info-error.plist"))
	if !errors.Is(err, errNoDisk) || err.Error() != "could not find disk: Could not find disk: /Volumes/SMB" {
		t.Errorf("error plist: %v", err)
	}
}

func TestParseList(t *testing.T) {
	l, err := parseList(read(t, "diskutil-list-tart.plist"))
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
		if got := parseErase(read(t, tt.file)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.file, got, tt.want)
		}
	}
}

func TestBusyParsers(t *testing.T) {
	if c := diskutilCode(read(t, "diskutil-69888-10.7.txt")); c != codeBusy {
		t.Errorf("code %d", c)
	}
	if c := diskutilCode(read(t, "diskutil-eject.txt")); c != 0 {
		t.Errorf("success has code %d", c)
	}
	ps := dissenters(read(t, "diskutil-unmount-dissent.txt"))
	if len(ps) != 1 || ps[0].PID != 632 || ps[0].Command != "QuickLookUIService" {
		t.Errorf("dissenters %+v", ps)
	}
	ps = dissenters([]byte("Volume X on disk9s1 failed to unmount: dissented by PID 29138 (diskimages-helper)"))
	if len(ps) != 1 || ps[0].PID != 29138 || ps[0].Command != "diskimages-helper" {
		t.Errorf("helper dissent %+v", ps)
	}
	for _, f := range []string{"hdiutil-detach-busy-10.14.txt", "hdiutil-detach-busy-old.txt"} {
		if s := stripWarnings(string(read(t, f))); s == "" {
			t.Errorf("%s: words lost", f)
		}
	}
}

// TestBusyWording: hdiutil's and diskutil's ways of saying "in use", from
// the VERBATIM samples, whatever the exit code; other failures are not busy.
func TestBusyWording(t *testing.T) {
	for _, f := range []string{"hdiutil-detach-busy-old.txt", "hdiutil-detach-busy-10.14.txt", "diskutil-unmount-dissent.txt", "diskutil-69888-10.7.txt"} {
		if !busyWording(read(t, f)) {
			t.Errorf("%s: busy not recognised", f)
		}
	}
	for _, f := range []string{"hdiutil-detach-gone.txt", "hdiutil-attach-failed.txt", "diskutil-eject.txt"} {
		if busyWording(read(t, f)) {
			t.Errorf("%s: taken for busy", f)
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
		v, err := parseVMStat(read(t, tt.file))
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
	if _, err := parseVMStat([]byte("Pages free: 1.\n")); err == nil {
		t.Errorf("vm_stat without header accepted")
	}
	s := parseSysctl(read(t, "sysctl-memsize-26.3.txt"))
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
		w, err := parseSwap(parseSysctl(read(t, tt.file))["vm.swapusage"])
		if err != nil || w.Total != tt.total || w.Used != tt.used {
			t.Errorf("%s: %+v %v", tt.file, w, err)
		}
	}
	if w, err := parseSwap("total = 0.00M  used = 0.00M  free = 0.00M  (encrypted)"); err != nil || w.Total != 0 {
		t.Errorf("no swap: %+v %v", w, err)
	}
	p, err := parsePressure(read(t, "memory_pressure-applesilicon-32g.txt"))
	if err != nil || p.Physical != 34359738368 || p.PageSize != 16384 || p.FreePercent != 86 {
		t.Errorf("memory_pressure %+v %v", p, err)
	}
	p, err = parsePressure(read(t, "memory_pressure-Q-xcode26.txt"))
	if err != nil || p.Physical != 17179869184 || p.PageSize != 0 || p.FreePercent != 40 {
		t.Errorf("memory_pressure -Q %+v %v", p, err)
	}
	for in, want := range map[string]string{"1\n": "normal", "2": "warn", "4": "critical", "x": ""} {
		if got := pressureLevel(in); got != want {
			t.Errorf("pressureLevel(%q) = %q", in, got)
		}
	}
}

func TestParseFootprint(t *testing.T) {
	fs, err := parseFootprintText(read(t, "footprint-categories.txt"))
	if err != nil || len(fs) != 1 {
		t.Fatalf("%+v %v", fs, err)
	}
	if f := fs[0]; f.Name != "Asterism" || f.PID != 812 || f.Footprint != 6939<<20 || f.Phys != 491520<<10 || f.Peak != 7273472<<10 || f.Bytes() != 491520<<10 {
		t.Errorf("categories report %+v", f)
	}
	fs, err = parseFootprintText(read(t, "footprint-bytes-two.txt"))
	if err != nil || len(fs) != 2 {
		t.Fatalf("%+v %v", fs, err)
	}
	if fs[0].PID != 103 || fs[0].Phys != 253937248 || fs[1].Name != "Share" || fs[1].Footprint != 2244968 {
		t.Errorf("two processes %+v", fs)
	}
	if _, err := parseFootprintText([]byte("footprint: no processes matched\n")); err == nil {
		t.Errorf("empty report accepted")
	}
	if n, err := parseRSS([]byte(" 26144\n")); err != nil || n != 26144*1024 {
		t.Errorf("rss %d %v", n, err)
	}
	if _, err := parseRSS(nil); err == nil {
		t.Errorf("empty rss accepted")
	}
}

func TestParseMisc(t *testing.T) {
	if !parseMdutil(read(t, "mdutil-off-monterey.txt")) {
		t.Errorf("mdutil: indexing disabled not seen")
	}
	text, code, ok := parseOsascriptError(read(t, "osascript-cancel.txt"))
	if !ok || code != osaCancelled || text != "User canceled." {
		t.Errorf("osascript cancel: %q %d %v", text, code, ok)
	}
	if _, code, ok := parseOsascriptError([]byte("0:300: execution error: hdiutil: couldn't eject \"disk4\" - Resource busy (16)\n")); !ok || code != 16 {
		t.Errorf("shell status not read: %d %v", code, ok)
	}
	ps := parseLsofF([]byte("p501\ncvim\nfcwd\nf4\np502\ncmy app\nfcwd\np501\ncvim\n"))
	if len(ps) != 2 || ps[0] != (proc{501, "vim"}) || ps[1] != (proc{502, "my app"}) {
		t.Errorf("lsof %+v", ps)
	}
	ms := parseMount([]byte("/dev/disk5s1 on /Volumes/RAM Disk 1 (apfs, local, nodev, nosuid, journaled, noowners, nobrowse, mounted by alice)\ntmpfs on /Volumes/T (tmpfs, local)\nmap auto_home on /System/Volumes/Data/home (autofs, automounted, nobrowse)\n"))
	if len(ms) != 3 || ms[0].MountPoint != "/Volumes/RAM Disk 1" || ms[0].FSType != "apfs" || ms[0].Options[5] != "nobrowse" || ms[1].FSType != "tmpfs" || ms[2].Source != "map auto_home" {
		t.Errorf("mount %+v", ms)
	}
	for in, want := range map[string]int{"26.4.1\n": 26, "10.15.7": 10, "27.0": 27} {
		if n, ok := macOSMajor(in); !ok || n != want {
			t.Errorf("macOSMajor(%q) = %d", in, n)
		}
	}
}

// TestVolumeIdentity reads the volume UUID diskutil reports as the disk's
// identity, and refuses placeholders and anything that is not a UUID.
func TestVolumeIdentity(t *testing.T) {
	for _, c := range []struct{ uuid, want string }{
		{"A0DB31C6-609F-439A-A883-AD5F057A2A20", "macos:uuid=A0DB31C6-609F-439A-A883-AD5F057A2A20"},
		{" a0db31c6-609f-439a-a883-ad5f057a2a20\n", "macos:uuid=A0DB31C6-609F-439A-A883-AD5F057A2A20"},
		{"00000000-0000-0000-0000-000000000000", ""}, // the reference's placeholder
		{"", ""},
		{"A0DB31C6609F439AA883AD5F057A2A20", ""},
		{"A0DB31C6-609F-439A-A883-AD5F057A2A2G", ""},
		{"A0DB31C6-609F-439A-A883-AD5F057A2A20-", ""},
	} {
		if got := (diskInfoPlist{VolumeUUID: c.uuid}).Identity(); got != c.want {
			t.Errorf("VolumeUUID %q: identity %q, want %q", c.uuid, got, c.want)
		}
	}
}
