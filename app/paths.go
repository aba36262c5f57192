package main

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// Paths the user types in flags. A shell expands ~ only at the start of a
// word, so --mirror=~/site reaches RAMBar as "~/site", which filepath.Abs
// would make a folder named "~" in the current one. Every path flag (and a
// cache target) goes through pathArg, which expands "~" and "~/…" to the
// home folder and refuses "~user/…", which it cannot read the same way a
// shell would.

// home is the home folder "~" means: the invoking user's under sudo (a
// shell expands ~ before sudo runs), else HOME.
func (a *App) home() string {
	if name := a.Getenv("SUDO_USER"); name != "" && os.Geteuid() == 0 {
		if u, err := user.Lookup(name); err == nil && u.HomeDir != "" {
			return u.HomeDir
		}
	}
	return a.Getenv("HOME")
}

// expandHome expands a leading "~" or "~/"; what names a flag or argument
// for errors ("--mirror").
func (a *App) expandHome(what, v string) (string, error) {
	if !strings.HasPrefix(v, "~") {
		return v, nil
	}
	rest, ok := strings.CutPrefix(v, "~")
	if ok && rest != "" && !strings.HasPrefix(rest, "/") {
		return "", usagef("%s %s: ~user is not expanded here; give the folder's full path", what, v)
	}
	h := a.home()
	if h == "" {
		return "", usagef("%s %s: HOME is not set, so ~ means nothing; give the folder's full path", what, v)
	}
	return filepath.Join(h, rest), nil
}

// pathArg is a path as typed, with ~ expanded, made absolute and clean;
// "" stays "".
func (a *App) pathArg(what, v string) (string, error) {
	if strings.TrimSpace(v) == "" {
		return "", nil
	}
	v, err := a.expandHome(what, v)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(v)
	if err != nil {
		return "", usagef("%s %q: %v", what, v, err)
	}
	return abs, nil
}
