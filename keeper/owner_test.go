package keeper

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

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
	if _, err := f.k.store(st).Restore(f.ctx, "", out, "", nil); err != nil {
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
