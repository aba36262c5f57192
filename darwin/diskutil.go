package darwin

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"howett.net/plist"
)

// diskInfoPlist is the part of `diskutil info -plist` RAMBar reads.
type diskInfoPlist struct {
	DeviceIdentifier string `plist:"DeviceIdentifier"`
	DeviceNode       string `plist:"DeviceNode"`
	ParentWholeDisk  string `plist:"ParentWholeDisk"`
	WholeDisk        bool   `plist:"WholeDisk"`
	BusProtocol      string `plist:"BusProtocol"`
	VolumeName       string `plist:"VolumeName"`
	MountPoint       string `plist:"MountPoint"`
	FilesystemType   string `plist:"FilesystemType"` // apfs, hfs
	FilesystemName   string `plist:"FilesystemName"` // APFS, Case-sensitive APFS, Journaled HFS+ ...
	// FilesystemUserVisibleName: "APFS (Case-sensitive)", "Mac OS Extended (Case-sensitive, Journaled)".
	FilesystemUserVisibleName string `plist:"FilesystemUserVisibleName"`
	TotalSize                 int64  `plist:"TotalSize"`
	Size                      int64  `plist:"Size"`
	FreeSpace                 int64  `plist:"FreeSpace"`
	VolumeSize                int64  `plist:"VolumeSize"`
	APFSContainerReference    string `plist:"APFSContainerReference"`
	APFSContainerSize         int64  `plist:"APFSContainerSize"`
	APFSContainerFree         int64  `plist:"APFSContainerFree"`
	APFSPhysicalStores        []struct {
		Store string `plist:"APFSPhysicalStore"`
	} `plist:"APFSPhysicalStores"`
	GlobalPermissionsEnabled *bool  `plist:"GlobalPermissionsEnabled"`
	VirtualOrPhysical        string `plist:"VirtualOrPhysical"`
	// VolumeUUID is the file system's own id, new at every erasevolume.
	VolumeUUID string `plist:"VolumeUUID"`
	// Error document fields (diskutil -plist reports failures on stdout).
	Error        bool   `plist:"Error"`
	ErrorMessage string `plist:"ErrorMessage"`
}

// IsAPFS reports an APFS volume.
func (d diskInfoPlist) IsAPFS() bool {
	return strings.EqualFold(d.FilesystemType, "apfs") || d.APFSContainerReference != ""
}

// Capacity is the file system's size: the container's for APFS.
func (d diskInfoPlist) Capacity() int64 {
	if d.IsAPFS() && d.APFSContainerSize > 0 {
		return d.APFSContainerSize
	}
	for _, n := range []int64{d.TotalSize, d.Size, d.VolumeSize} {
		if n > 0 {
			return n
		}
	}
	return 0
}

// Free is the space left: APFSContainerFree for APFS (FreeSpace is 0 there).
func (d diskInfoPlist) Free() int64 {
	if d.IsAPFS() {
		return d.APFSContainerFree
	}
	return d.FreeSpace
}

// Stores are the physical stores of an APFS volume ("disk4"), i.e. the ram://
// device under the synthesized container.
func (d diskInfoPlist) Stores() []string {
	var s []string
	for _, p := range d.APFSPhysicalStores {
		s = append(s, p.Store)
	}
	return s
}

// Identity is the volume's identity for ramdisk.Volume.Identity:
// "macos:uuid=" and its VolumeUUID, upper case; "" when diskutil gives none,
// or a placeholder (all zeros), or something that is not a UUID.
func (d diskInfoPlist) Identity() string {
	u := strings.ToUpper(strings.TrimSpace(d.VolumeUUID))
	if len(u) != 36 || strings.Trim(u, "0-") == "" {
		return ""
	}
	for i, c := range u {
		dash := i == 8 || i == 13 || i == 18 || i == 23
		if dash != (c == '-') || !dash && !strings.ContainsRune("0123456789ABCDEF", c) {
			return ""
		}
	}
	return "macos:uuid=" + u
}

// IsDiskImage reports a device served by a disk image.
func (d diskInfoPlist) IsDiskImage() bool { return d.BusProtocol == "Disk Image" }

// CaseSensitive reports a case-sensitive file system by its names.
func (d diskInfoPlist) CaseSensitive() bool {
	n := strings.ToLower(d.FilesystemName + " " + d.FilesystemUserVisibleName + " " + d.FilesystemType)
	return strings.Contains(n, "case-sensitive") || strings.Contains(n, "hfsx")
}

// Journaled reports a journaled HFS+ volume ("Journaled HFS+", "Mac OS
// Extended (Journaled)"); plain HFS+ is "HFS+" / "Mac OS Extended".
func (d diskInfoPlist) Journaled() bool {
	return strings.Contains(strings.ToLower(d.FilesystemName+" "+d.FilesystemUserVisibleName), "journaled")
}

// errNoDisk is wrapped when diskutil says "Could not find disk".
var errNoDisk = errors.New("could not find disk")

// parseDiskInfo reads `diskutil info -plist`, turning its error document
// (Error/ErrorMessage on stdout) into an error; "Could not find disk" wraps
// errNoDisk.
func parseDiskInfo(b []byte) (diskInfoPlist, error) {
	var d diskInfoPlist
	if _, err := plist.Unmarshal(b, &d); err != nil {
		return diskInfoPlist{}, fmt.Errorf("diskutil info -plist: %w", err)
	}
	if d.Error {
		if strings.Contains(d.ErrorMessage, "Could not find disk") {
			return d, fmt.Errorf("%w: %s", errNoDisk, d.ErrorMessage)
		}
		return d, errors.New(d.ErrorMessage)
	}
	return d, nil
}

// listEntry is one whole disk of `diskutil list -plist` with what it holds.
type listEntry struct {
	DeviceIdentifier string      `plist:"DeviceIdentifier"`
	Content          string      `plist:"Content"`
	Size             int64       `plist:"Size"`
	MountPoint       string      `plist:"MountPoint"`
	VolumeName       string      `plist:"VolumeName"`
	Partitions       []listEntry `plist:"Partitions"`
	APFSVolumes      []listEntry `plist:"APFSVolumes"`
	APFSStores       []listEntry `plist:"APFSPhysicalStores"`
}

// diskList is `diskutil list -plist`.
type diskList struct {
	AllDisks              []string    `plist:"AllDisks"`
	WholeDisks            []string    `plist:"WholeDisks"`
	AllDisksAndPartitions []listEntry `plist:"AllDisksAndPartitions"`
}

// parseList reads `diskutil list -plist`.
func parseList(b []byte) (diskList, error) {
	var l diskList
	if _, err := plist.Unmarshal(b, &l); err != nil {
		return diskList{}, fmt.Errorf("diskutil list -plist: %w", err)
	}
	return l, nil
}

// Mounted returns every mounted identifier in the list (whole disks,
// partitions, APFS volumes) with its mount point.
func (l diskList) Mounted() map[string]string {
	m := map[string]string{}
	var walk func(es []listEntry)
	walk = func(es []listEntry) {
		for _, e := range es {
			if e.MountPoint != "" {
				m[e.DeviceIdentifier] = e.MountPoint
			}
			walk(e.Partitions)
			walk(e.APFSVolumes)
		}
	}
	walk(l.AllDisksAndPartitions)
	return m
}

var (
	reAPFSVolume = regexp.MustCompile(`(?m)^Created new APFS Volume (disk\d+s\d+)`)
	reAPFSOp     = regexp.MustCompile(`(?m)^Disk from APFS operation: (disk\d+(?:s\d+)?)`)
	reFinished   = regexp.MustCompile(`(?m)^Finished erase on (disk\d+)`)
)

// parseErase returns the volume's device from `diskutil erasevolume` output:
// the APFS volume diskMs1 when a container was made, else the erased disk
// itself (HFS+ sits on the whole device). "" when nothing is recognised.
func parseErase(out []byte) string {
	if m := reAPFSVolume.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	if m := reAPFSOp.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	if m := reFinished.FindSubmatch(out); m != nil {
		return string(m[1])
	}
	return ""
}

var (
	reDiskutilErr = regexp.MustCompile(`Error: (-\d+):`)
	reDissent     = regexp.MustCompile(`dissented by PID (\d+)(?: \(([^)]*)\))?`)
)

// diskutilCode returns the -69xxx code of a diskutil failure ("Error: -69888:
// Couldn't unmount disk"), or 0.
func diskutilCode(out []byte) int {
	m := reDiskutilErr.FindSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// codeBusy is diskutil's "Couldn't unmount disk".
const codeBusy = -69888

// dissenters returns the processes diskutil names in "dissented by PID N (path)".
func dissenters(out []byte) []proc {
	var ps []proc
	for _, m := range reDissent.FindAllSubmatch(out, -1) {
		pid, _ := strconv.Atoi(string(m[1]))
		name := string(m[2])
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		ps = append(ps, proc{PID: pid, Command: name})
	}
	return ps
}

// busyWording reports whether a tool's words say the disk is in use, in the
// forms hdiutil and diskutil use (LC_ALL=C): "Resource busy", "dissented by",
// "in use by process", "Couldn't unmount disk".
func busyWording(out []byte) bool {
	s := strings.ToLower(string(out))
	for _, w := range []string{"resource busy", "dissented by", "in use by process", "couldn't unmount disk"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// proc is a process named by a tool.
type proc struct {
	PID     int
	Command string
}

// parseMdutil reports whether `mdutil -i off|-s` said indexing is disabled.
func parseMdutil(out []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "Indexing disabled." {
			return true
		}
	}
	return false
}
