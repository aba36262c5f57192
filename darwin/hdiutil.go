package darwin

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"howett.net/plist"
)

// ParseAttach returns the device that `hdiutil attach -nomount ram://N` (or
// `diskutil image attach --noMount`) printed. hdiutil pads the device to 20
// columns and adds two TABs and 31 spaces; the first field of the first line
// that starts with /dev/disk is the device, never the padded line.
func ParseAttach(out []byte) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && strings.HasPrefix(f[0], "/dev/disk") {
			return f[0], nil
		}
	}
	return "", fmt.Errorf("no /dev/disk device in attach output %q", firstLine(out))
}

// Entity is one device of an attached image: the whole disk, a partition, an
// APFS container or volume.
type Entity struct {
	Dev        string `plist:"dev-entry"`
	Hint       string `plist:"content-hint"`
	MountPoint string `plist:"mount-point"`
}

// Image is one attached disk image as `hdiutil info` reports it.
type Image struct {
	Path       string   `plist:"image-path"`
	BlockCount int64    `plist:"blockcount"`
	BlockSize  int64    `plist:"blocksize"`
	HelperPID  int      `plist:"hdid-pid"` // 0 when not reported
	OwnerUID   int      `plist:"owner-uid"`
	Entities   []Entity `plist:"system-entities"`
	// DiskImages2 is true for images served by the newer framework.
	DiskImages2 bool `plist:"diskimages2"`
	// Framework is the text form's "framework name" (DiskImages, DiskImages2).
	Framework string `plist:"-"`
}

// IsRAM reports whether the image is a ram:// disk.
func (im Image) IsRAM() bool { return strings.HasPrefix(im.Path, "ram://") }

// Device is the image's whole disk (/dev/diskN): what must be detached to
// free its memory (for APFS, not the synthesized container).
func (im Image) Device() string {
	// hdiutil lists the whole disk first, then partitions, then any APFS
	// container synthesized on top of it.
	if len(im.Entities) == 0 {
		return ""
	}
	return im.Entities[0].Dev
}

// Mounted returns the image's mounted entity (the volume), if any.
func (im Image) Mounted() (Entity, bool) {
	for _, e := range im.Entities {
		if e.MountPoint != "" {
			return e, true
		}
	}
	return Entity{}, false
}

// Size is blockcount × blocksize (512 when the text form leaves it out).
func (im Image) Size() int64 {
	bs := im.BlockSize
	if bs == 0 {
		bs = 512
	}
	return im.BlockCount * bs
}

type infoPlist struct {
	Framework string  `plist:"framework"`
	Images    []Image `plist:"images"`
}

// ParseInfoPlist reads `hdiutil info -plist`. macOS 15 leaves the images key
// out when nothing is attached; that is an empty list, not an error.
func ParseInfoPlist(b []byte) ([]Image, error) {
	var doc infoPlist
	if _, err := plist.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("hdiutil info -plist: %w", err)
	}
	return doc.Images, nil
}

// ParseInfoText reads the text form of `hdiutil info` (any locale: only key
// names, which are not translated, and numbers are used). Blocks are separated
// by lines of '='; entity lines are TAB-separated "dev\thint\tmount".
func ParseInfoText(b []byte) ([]Image, error) {
	var out []Image
	var cur *Image
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(line, "===="):
			cur = nil
			continue
		case strings.HasPrefix(line, "/dev/"):
			if cur == nil {
				continue
			}
			parts := strings.Split(line, "\t")
			e := Entity{Dev: strings.TrimSpace(parts[0])}
			if len(parts) > 1 {
				e.Hint = strings.TrimSpace(parts[1])
			}
			if len(parts) > 2 {
				e.MountPoint = parts[2]
			}
			cur.Entities = append(cur.Entities, e)
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "image-path" {
			out = append(out, Image{Path: v})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch k {
		case "blockcount":
			cur.BlockCount, _ = strconv.ParseInt(v, 10, 64)
		case "blocksize":
			cur.BlockSize, _ = strconv.ParseInt(v, 10, 64)
		case "process ID":
			cur.HelperPID, _ = strconv.Atoi(v)
		case "framework name":
			cur.Framework = v
			cur.DiskImages2 = v == "DiskImages2"
		}
	}
	return out, sc.Err()
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

// Deprecated reports whether stderr carries macOS 27's deprecation warning.
func Deprecated(stderr []byte) bool {
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
