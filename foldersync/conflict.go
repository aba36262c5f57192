package foldersync

import (
	"fmt"
	"path"
	"strings"
	"time"
	"unicode/utf8"
)

// Conflict is a path of a Mirror folder that changed both in the folder
// (outside RAMBar) and on the disk since they were last brought together.
// Nothing is lost: both versions are kept, and the save reports it.
type Conflict struct {
	// Path is the path in the folder, slash-separated.
	Path string `json:"path"`
	// Copy is where the other version was put ("" when one side deleted
	// the path and the other's version was simply kept).
	Copy string `json:"copy,omitempty"`
	// What happened, in words: which version is under Path, which in Copy.
	What string `json:"what"`
}

// String is the CLI's line for a conflict.
func (c Conflict) String() string {
	if c.Copy == "" {
		return c.Path + ": " + c.What
	}
	return fmt.Sprintf("%s: %s; the other version is %s", c.Path, c.What, c.Copy)
}

// WriteBack says what a Mirror disk's write-back did to its folder.
type WriteBack struct {
	// Folder is the mirror folder.
	Folder string `json:"folder"`
	// Conflicts lists the paths changed on both sides (both versions kept).
	Conflicts []Conflict `json:"conflicts"`
	// KeptOutside counts paths changed, added or deleted in the folder
	// outside RAMBar that the write-back kept as the folder had them.
	KeptOutside int `json:"kept_outside"`
	// DeletedOutside lists paths deleted in the folder outside RAMBar that
	// the disk still has: they stay deleted in the folder (the disk's copy
	// is in the store's snapshots).
	DeletedOutside []string `json:"deleted_outside,omitempty"`
	// NotKept names what could not be kept or written: metadata the OS
	// refused to set, or a path whose new version could not be written
	// (the folder keeps its version; the next save tries again).
	NotKept []string `json:"not_kept,omitempty"`
	// Postponed counts deletions the disk made that wait for a save that
	// finds the disk still: the disk changed while it was saved, so a path
	// its snapshot lacks may only have moved. The folder keeps them
	// meanwhile.
	Postponed int `json:"postponed,omitempty"`
	// Took is how long the write-back took (the save's Took is the store's).
	Took time.Duration `json:"took_ns"`
}

// ConflictName is the name the other version of path gets: syncthing's
// style, with RAMBar's name in it, before the extension so the file still
// opens with the same program: "site/index.html" at 2026-12-01 10:15:00
// becomes "site/index.rambar-conflict-20261201-101500.html". n > 1 adds
// "-n" for a second conflict of the same path in the same second.
func ConflictName(p string, at time.Time, n int) string {
	dir, base := path.Split(p)
	ext := path.Ext(base)
	if ext == base || len(ext) > 16 || strings.ContainsAny(ext, " ") {
		ext = "" // ".bashrc", "archive.tar.gz" keeps ".gz"
	}
	stem := strings.TrimSuffix(base, ext)
	tag := ".rambar-conflict-" + at.Format("20060102-150405")
	if n > 1 {
		tag += fmt.Sprintf("-%d", n)
	}
	// A name stays within 255 bytes: the stem is cut if need be.
	if over := len(stem) + len(tag) + len(ext) - 255; over > 0 {
		cut := max(0, len(stem)-over)
		for cut > 0 && !utf8.RuneStart(stem[cut]) {
			cut-- // never half a character
		}
		stem = stem[:cut]
	}
	return dir + stem + tag + ext
}
