package ramdisk

import (
	"rambar/i18n"
	"strings"
)

// FileSystem is a RAM disk's format. The values are stable: they appear in
// settings files and in `--json` output.
type FileSystem string

// The file systems RAMBar knows.
const (
	APFS        FileSystem = "apfs"      // macOS: APFS (clones), the default
	APFSCase    FileSystem = "apfs-case" // macOS: case-sensitive APFS
	HFSPlus     FileSystem = "hfs+"      // macOS: plain HFS+, as the seed measured it (faster flushes)
	HFSPlusCase FileSystem = "hfs+-case" // macOS: case-sensitive HFS+
	JHFSPlus    FileSystem = "jhfs+"     // macOS: journaled HFS+
	TmpFS       FileSystem = "tmpfs"     // Linux; macOS 11+ with admin rights
	ZRAM        FileSystem = "zram"      // Linux: compressed block device with ext4
)

// AllFileSystems lists every file system in the order menus show them.
var AllFileSystems = []FileSystem{APFS, APFSCase, HFSPlus, HFSPlusCase, JHFSPlus, TmpFS, ZRAM}

// ErrFileSystem is wrapped when a file system name is not known.
var ErrFileSystem = i18n.New("unknown file system")

var fsAliases = map[string]FileSystem{
	"apfs": APFS, "apfs-case": APFSCase, "apfsx": APFSCase, "case-sensitive apfs": APFSCase,
	"hfs+": HFSPlus, "hfs": HFSPlus, "jhfs+": JHFSPlus, "journaled hfs+": JHFSPlus, "hfsplus": HFSPlus, "mac os extended": HFSPlus,
	"hfs+-case": HFSPlusCase, "hfsx": HFSPlusCase, "jhfsx": HFSPlusCase, "jhfs+x": HFSPlusCase,
	"tmpfs": TmpFS, "zram": ZRAM,
}

// ParseFileSystem reads a file system name in any of the usual spellings
// ("APFS", "apfsx", "HFS+", "JHFS+", "hfsx", "tmpfs", "zram").
func ParseFileSystem(s string) (FileSystem, error) {
	if fs, ok := fsAliases[strings.ToLower(strings.TrimSpace(s))]; ok {
		return fs, nil
	}
	names := make([]string, len(AllFileSystems))
	for i, f := range AllFileSystems {
		names[i] = string(f)
	}
	return "", i18n.Errorf("%w %q: use one of %s", ErrFileSystem, s, strings.Join(names, ", "))
}

// Label is the name people read in menus and tables.
func (f FileSystem) Label() string {
	switch f {
	case APFS:
		return "APFS"
	case APFSCase:
		return "APFS (case-sensitive)"
	case HFSPlus:
		return "HFS+"
	case HFSPlusCase:
		return "HFS+ (case-sensitive)"
	case JHFSPlus:
		return "HFS+ (journaled)"
	case TmpFS:
		return "tmpfs"
	case ZRAM:
		return "zram (compressed)"
	}
	return string(f)
}

// IsDiskImage reports whether the file system lives on a macOS ram:// disk
// image, served by a diskimages-helper process.
func (f FileSystem) IsDiskImage() bool {
	return f == APFS || f == APFSCase || f == HFSPlus || f == HFSPlusCase || f == JHFSPlus
}
