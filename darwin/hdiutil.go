package darwin

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"howett.net/plist"
)

// parseAttach returns the device that `hdiutil attach -nomount ram://N` (or
// `diskutil image attach --noMount`) printed. hdiutil pads the device to 20
// columns and adds two TABs and 31 spaces; the first field of the first line
// that starts with /dev/disk is the device, never the padded line.
func parseAttach(out []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && strings.HasPrefix(f[0], "/dev/disk") {
			return f[0], nil
		}
	}
	return "", fmt.Errorf("no /dev/disk device in attach output %q", firstLine(out))
}

// entity is one device of an attached image: the whole disk, a partition, an
// APFS container or volume.
type entity struct {
	Dev        string `plist:"dev-entry"`
	Hint       string `plist:"content-hint"`
	MountPoint string `plist:"mount-point"`
}

// hdImage is one attached disk image as `hdiutil info` reports it.
type hdImage struct {
	Path       string   `plist:"image-path"`
	BlockCount int64    `plist:"blockcount"`
	BlockSize  int64    `plist:"blocksize"`
	HelperPID  int      `plist:"hdid-pid"` // 0 when not reported
	OwnerUID   int      `plist:"owner-uid"`
	Entities   []entity `plist:"system-entities"`
	// DiskImages2 is true for images served by the newer framework.
	DiskImages2 bool `plist:"diskimages2"`
	// Framework is the text form's "framework name" (DiskImages, DiskImages2).
	Framework string `plist:"-"`
}

// IsRAM reports whether the image is a ram:// disk.
func (im hdImage) IsRAM() bool { return strings.HasPrefix(im.Path, "ram://") }

// Device is the image's whole disk (/dev/diskN): what must be detached to
// free its memory. It is found by its role, not its position (real output can
// list disk3s1 before disk3): the entity with no partition suffix that is not
// an APFS container synthesized on top of the image. "" when there is none.
func (im hdImage) Device() string {
	for _, e := range im.Entities {
		if reWholeDisk.MatchString(e.Dev) && !strings.EqualFold(e.Hint, apfsContainerHint) {
			return e.Dev
		}
	}
	return ""
}

// apfsContainerHint is the content hint of a synthesized APFS container disk.
const apfsContainerHint = "EF57347C-0000-11AA-AA11-00306543ECAC"

var reWholeDisk = regexp.MustCompile(`^/dev/disk\d+$`)

// Mounted returns the image's mounted entity (the volume), if any.
func (im hdImage) Mounted() (entity, bool) {
	for _, e := range im.Entities {
		if e.MountPoint != "" {
			return e, true
		}
	}
	return entity{}, false
}

// Size is blockcount × blocksize (512 when the text form leaves it out).
func (im hdImage) Size() int64 {
	bs := im.BlockSize
	if bs == 0 {
		bs = 512
	}
	return im.BlockCount * bs
}

type infoPlist struct {
	Framework string    `plist:"framework"`
	Images    []hdImage `plist:"images"`
}

// parseInfoPlist reads `hdiutil info -plist`. macOS 15 leaves the images key
// out when nothing is attached; that is an empty list, not an error.
func parseInfoPlist(b []byte) ([]hdImage, error) {
	var doc infoPlist
	if _, err := plist.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("hdiutil info -plist: %w", err)
	}
	return doc.Images, nil
}

// stripWarnings drops macOS 27's "hdiutil: WARNING: ... is deprecated" lines
// so they never show in an error; they are not failures.
func stripWarnings(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "hdiutil: WARNING:") {
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// isDeprecated reports whether stderr carries macOS 27's deprecation warning.
func isDeprecated(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("hdiutil: WARNING:")) && bytes.Contains(stderr, []byte("deprecated"))
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:120]
	}
	return s
}
