//go:build linux

package keeper

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a private configuration.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "safe.directory=*"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// A git repository in the folder: a commit in the folder and a git
// status (and a commit) on the disk change .git's index, refs and logs
// on both sides. The refresh leaves no conflict copy inside .git on
// either side: the folder's state wins there (the disk's stays in its
// snapshot, and the save says so), git on the disk sees the folder's
// commit and a clean tree, and lock files never cross either way.
func TestRefreshGitRepository(t *testing.T) {
	f := newMirrorFill(t, func(folder string) {
		write(t, folder, "a.txt", "a\n")
		gitIn(t, folder, "init", "-q", "-b", "main")
		gitIn(t, folder, "add", "a.txt")
		gitIn(t, folder, "commit", "-qm", "one")
	})
	write(t, f.folder, "b.txt", "b\n")
	gitIn(t, f.folder, "add", "b.txt")
	gitIn(t, f.folder, "commit", "-qm", "two, in the folder")
	write(t, f.folder, ".git/index.lock", "the folder's git is writing")
	gitIn(t, f.v.MountPoint, "status", "--porcelain")
	write(t, f.v.MountPoint, "c.txt", "c\n")
	gitIn(t, f.v.MountPoint, "add", "c.txt")
	gitIn(t, f.v.MountPoint, "commit", "-qm", "two, on the disk")
	write(t, f.v.MountPoint, ".git/HEAD.lock", "the disk's git is writing")
	// A save alone (the write-back) makes no copy inside .git either.
	s := f.save()
	if s.Folder == nil || len(s.Folder.Conflicts) == 0 {
		t.Fatalf("the save wrote back no notice of .git changed on both sides: %+v", s.Folder)
	}
	noCopies(t, filepath.Join(f.folder, ".git"))
	absent(t, f.inFolder(".git/HEAD.lock"))
	r := f.refresh()
	r.Before.Folder = s.Folder // the save above met the conflicts; the refresh's own found none left
	gitNotes := 0
	for _, c := range r.Conflicts() {
		if strings.HasPrefix(c.Path, ".git/") || strings.Contains(c.Path, "/.git/") {
			gitNotes++
			if c.Copy != "" {
				t.Errorf("a conflict copy inside .git: %+v", c)
			}
		}
	}
	if gitNotes == 0 {
		t.Errorf("no notice of .git changed on both sides: %+v", r.Conflicts())
	}
	for _, root := range []string{f.folder, f.v.MountPoint} {
		noCopies(t, filepath.Join(root, ".git"))
	}
	absent(t, f.disk(".git/index.lock"))
	absent(t, f.inFolder(".git/HEAD.lock"))
	os.Remove(f.inFolder(".git/index.lock"))
	os.Remove(f.disk(".git/HEAD.lock"))
	log := gitIn(t, f.v.MountPoint, "log", "--format=%s")
	if !strings.HasPrefix(log, "two, in the folder\n") {
		t.Errorf("git log on the disk:\n%s", log)
	}
	gitIn(t, f.v.MountPoint, "fsck", "--no-progress")
	if st := gitIn(t, f.v.MountPoint, "status", "--porcelain"); st != "?? c.txt\n" {
		t.Errorf("git status on the disk after the refresh:\n%s", st)
	}
	s = f.save()
	if s.Folder != nil && len(s.Folder.Conflicts) > 0 {
		t.Errorf("the save after the refresh: %+v", s.Folder.Conflicts)
	}
	for _, root := range []string{f.folder, f.v.MountPoint} {
		noCopies(t, filepath.Join(root, ".git"))
	}
}
