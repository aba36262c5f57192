package mirror

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestSudoerOf(t *testing.T) {
	cases := []struct {
		name     string
		root     bool
		uid, gid string
		want     sudoer
	}{
		{"root under sudo", true, "1000", "1001", sudoer{1000, 1001, true}},
		{"not root", false, "1000", "1001", sudoer{}},
		{"no SUDO_UID", true, "", "1001", sudoer{}},
		{"no SUDO_GID", true, "1000", "", sudoer{}},
		{"not a number", true, "10x", "1001", sudoer{}},
		{"negative", true, "-1", "1001", sudoer{}},
		{"the 'no owner' value", true, "4294967295", "1", sudoer{}},
		{"too large", true, "4294967296", "1", sudoer{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := map[string]string{"SUDO_UID": c.uid, "SUDO_GID": c.gid}
			if got := sudoerOf(c.root, func(k string) string { return env[k] }); got != c.want {
				t.Errorf("sudoerOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestRestoreUnderSudoGivesTheInvokingUser runs itself again in a child
// process with SUDO_UID and SUDO_GID set, as sudo would: there a save of
// files owned by root and by another user (a setuid root file among them)
// and its restore must give every path to the invoking user.
func TestRestoreUnderSudoGivesTheInvokingUser(t *testing.T) {
	if os.Getenv("RAMBAR_TEST_SUDO_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestRestoreUnderSudoGivesTheInvokingUser$", "-test.count=1")
		cmd.Env = append(os.Environ(), "RAMBAR_TEST_SUDO_CHILD=1", "SUDO_UID=4321", "SUDO_GID=8765")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("under sudo: %v\n%s", err, out)
		}
		return
	}
	if !underSudo.ok || underSudo.uid != 4321 || underSudo.gid != 8765 {
		t.Fatalf("underSudo = %+v with SUDO_UID=4321 SUDO_GID=8765 as root", underSudo)
	}
	f := newFixture(t)
	st, v := f.kept("Sudo")
	write(t, v.MountPoint, "root-owned", "r")
	write(t, v.MountPoint, "dir/other", "o")
	os.Chown(filepath.Join(v.MountPoint, "dir/other"), 1111, 2222)
	write(t, v.MountPoint, "suid", "s")
	os.Chmod(filepath.Join(v.MountPoint, "suid"), os.ModeSetuid|0o755)
	os.Symlink("root-owned", filepath.Join(v.MountPoint, "link"))
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if _, err := f.k.store(st).restore(f.ctx, "", out, "", nil); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".", "root-owned", "dir", "dir/other", "suid", "link"} {
		fi, err := os.Lstat(filepath.Join(out, rel))
		if err != nil {
			t.Fatal(err)
		}
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 4321 || st.Gid != 8765 {
			t.Errorf("%s restored under sudo as %d:%d, want the invoking user 4321:8765", rel, st.Uid, st.Gid)
		}
	}
	if fi, _ := os.Stat(filepath.Join(out, "suid")); fi.Mode()&os.ModeSetuid == 0 {
		t.Error("suid lost its setuid bit (it is the invoking user's now, as is the file)")
	}
}
