// Package testuser runs this test binary as another local user (uid
// 65534, "nobody"): the tests of what one user can do to another's RAMBar.
package testuser

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// Nobody is the uid (and gid) the other user runs as.
const Nobody = 65534

// Runner copies this test binary where uid Nobody may run it (a folder
// of its own under the system's temporary folder, removed when t ends)
// and returns a func that runs the test named by the -test.run pattern
// run in it as uid Nobody, with env added to this process's environment,
// and gives its combined output.
func Runner(t testing.TB, run string) func(env ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return func(env ...string) string {
		cmd := exec.Command(bin, "-test.run="+run)
		cmd.Env = append(os.Environ(), env...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: Nobody, Gid: Nobody}}
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
}
