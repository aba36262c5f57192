package ramdisk

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// systemTrees are folders no disk may be mounted in or on: the system's own.
var systemTrees = []string{"/System", "/usr", "/etc", "/bin", "/sbin", "/dev", "/proc", "/sys", "/boot",
	"/Library", "/private/etc", "/private/var", "/var", "/cores", "/opt/homebrew"}

// systemFolders are folders no disk may be mounted on (their insides may be fine).
var systemFolders = []string{"/", "/Users", "/home", "/root", "/Applications", "/Volumes", "/mnt", "/media",
	"/tmp", "/private", "/private/tmp", "/opt", "/run", "/srv", "/lib", "/lib64", "/Network"}

// mountPointFacts are what CheckMountPoint needs besides the folder.
type mountPointFacts struct {
	home    string   // $HOME
	uid     int      // the user the disk is for
	asRoot  bool     // this process runs as root
	root    string   // the engine's mount root
	mounted []Volume // RAM disks mounted now
}

// applyOptions copies the options into the plan and checks the mount point
// and the options against this machine.
func (p *Plan) applyOptions(o VolumeOptions, f Facts) error {
	if err := o.Check(); err != nil {
		return err
	}
	p.Options = o
	if o.MountPoint != "" {
		mp, err := checkMountPoint(o.MountPoint, mountPointFacts{home: os.Getenv("HOME"), uid: Invoking().UID, asRoot: os.Geteuid() == 0,
			root: f.Caps.MountRoot, mounted: f.Mounted})
		if err != nil {
			return err
		}
		p.MountPoint, p.Options.MountPoint = mp, mp
		p.note(Info, "mounted at %s instead of %s", mp, f.Caps.MountRoot)
	}
	if o.NoExec {
		p.note(Info, "mounted noexec, nosuid, nodev: nothing on it can be run as a program")
	}
	if o.Spotlight && f.Caps.OS != "darwin" {
		p.note(Warning, "--spotlight has no effect on %s: Spotlight is macOS's indexer", osLabel(f.Caps.OS))
	}
	if o.Spotlight && f.Caps.OS == "darwin" {
		p.note(Info, "Spotlight indexes it (mdutil -i on); indexing costs memory and CPU as files are written")
	}
	return nil
}

// checkMountPoint refuses a mount point that is not a clean absolute path,
// is a system folder or inside one, is $HOME or ~/Library, is inside the
// mount root or another RAM disk, is a symlink, a file, a folder with
// something in it, a folder someone else owns (root's is the disk user's
// to use only when this process is root), a folder under a parent that
// does not exist, or one that another user could swap for something else
// before it is mounted (CheckPathSteps). It returns the path cleaned. The
// error is one line wrapping ErrOption.
func checkMountPoint(dir string, f mountPointFacts) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("%w: mount point %s: %s", ErrOption, dir, why)
	}
	if !filepath.IsAbs(dir) {
		return bad("give an absolute path")
	}
	clean := filepath.Clean(dir)
	if why := systemWhy(clean, f.home); why != "" {
		return bad(why)
	}
	parent, err := filepath.EvalSymlinks(filepath.Dir(clean))
	if err != nil {
		return bad("its parent folder does not exist")
	}
	real := filepath.Join(parent, filepath.Base(clean))
	if why := systemWhy(real, f.home); why != "" {
		return bad(why)
	}
	if root := strings.TrimSuffix(f.root, "/"); root != "" {
		if within(real, root) || within(clean, root) {
			return bad("inside RAMBar's mount root " + root + "; leave --mount-point out to mount there")
		}
	}
	for _, v := range f.mounted {
		if v.MountPoint != "" && (within(real, v.MountPoint) || within(clean, v.MountPoint)) {
			return bad("inside the RAM disk " + v.Name)
		}
	}
	if IsMountPoint(real) {
		return bad("something is mounted there already")
	}
	mine := func(st os.FileInfo) bool { return owner(st) == f.uid || f.asRoot && owner(st) == 0 }
	st, err := os.Lstat(real)
	switch {
	case errors.Is(err, os.ErrNotExist):
		pst, err := os.Stat(parent)
		if err != nil || !pst.IsDir() {
			return bad("its parent is not a folder")
		}
		if !mine(pst) {
			return bad(fmt.Sprintf("its parent folder belongs to someone else (uid %d)", owner(pst)))
		}
		return safeWay(real, parent, f.uid, bad)
	case err != nil:
		return bad(err.Error())
	case st.Mode()&os.ModeSymlink != 0:
		return bad("it is a symbolic link; give the folder itself")
	case !st.IsDir():
		return bad("it is a file, not a folder")
	case !mine(st):
		return bad(fmt.Sprintf("the folder belongs to someone else (uid %d)", owner(st)))
	}
	if _, err := safeWay(real, real, f.uid, bad); err != nil {
		return "", err
	}
	anyOwner := f.uid
	if f.uid == 0 {
		anyOwner = -1
	}
	if CheckEmptyMountPoint(real, anyOwner) != nil {
		return bad("the folder is not empty (the disk would hide what is in it)")
	}
	return real, nil
}

// safeWay refuses real when another user could swap a folder on the way to
// it (from / down to last, which is real or, when real is to be made, its
// parent) for something else.
func safeWay(real, last string, uid int, bad func(string) (string, error)) (string, error) {
	steps, err := pathSteps(last)
	if err != nil {
		return bad(err.Error())
	}
	if last != real { // the folder RAMBar makes, as the disk's user
		steps = append(steps, PathStep{Path: real, UID: uid, Mode: os.ModeDir | 0o700})
	}
	if why := CheckPathSteps(steps, uid); why != "" {
		return bad(why)
	}
	return real, nil
}

// systemWhy says why p is a system folder, "" when it is not.
func systemWhy(p, home string) string {
	for _, s := range systemFolders {
		if p == s {
			return "a system folder"
		}
	}
	for _, s := range systemTrees {
		if within(p, s) {
			return "inside the system folder " + s
		}
	}
	if home != "" {
		home = filepath.Clean(home)
		switch p {
		case home:
			return "your home folder itself"
		case filepath.Join(home, "Library"), filepath.Join(home, "Library", "Caches"), filepath.Join(home, ".cache"), filepath.Join(home, ".config"):
			return "a folder your login needs"
		}
	}
	return ""
}

// within reports whether p is dir or inside it.
func within(p, dir string) bool {
	dir = filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
