package ramdisk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// UnexpandedTilde returns the part of an absolute path from a folder named
// "~" on ("~/site" of "/home/ana/~/site"), or "" when it has none. A shell
// expands ~ only at the start of a word, so "--mirror=~/site" reached an
// older RAMBar as "~/site" and was made absolute from the current folder;
// the user meant their home.
func UnexpandedTilde(path string) string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i, p := range parts {
		if p == "~" {
			return strings.Join(parts[i:], "/")
		}
	}
	return ""
}

// CheckPresetPaths refuses a preset whose folder, mount point or icon is a
// path through a folder named "~" that does not exist (UnexpandedTilde),
// saying how to give it again; the error wraps ErrOption. Such a path that
// exists is the user's own and is used as it is.
func CheckPresetPaths(p Preset) error {
	for _, x := range []struct{ flag, path string }{{"--mirror", p.MirrorPath}, {"--mount-point", p.MountPoint}, {"--icon", p.Icon}} {
		t := UnexpandedTilde(x.path)
		if t == "" {
			continue
		}
		if _, err := os.Lstat(x.path); err == nil {
			continue
		}
		return fmt.Errorf("%w: preset %s: %s %s goes through a folder named \"~\" that does not exist (a shell does not expand ~ after =); "+
			"give it again: rambar preset edit %s %s %s", ErrOption, p.Name, x.flag, x.path, p.Name, x.flag, t)
	}
	return nil
}
