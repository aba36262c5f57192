package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// mountsAt lists the mount points under any of dirs, from the mount table.
func mountsAt(t *testing.T, dirs ...string) []string {
	t.Helper()
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 4 {
			p := unescapeMount(f[4])
			for _, d := range dirs {
				if p == d || strings.HasPrefix(p, d+"/") {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// stateOf names every path under dir with its size, to tell that nothing
// was written there.
func stateOf(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			out = append(out, p+" "+fi.ModTime().String())
		}
		return nil
	})
	return out
}

// TestCLIRefusesClashes: every combination of options that cannot work
// together, given to create, preset add and edit and keep, is refused
// with exit 2 and one line saying why, before anything is made: the mount
// table, the data folder and the settings are as they were.
func TestCLIRefusesClashes(t *testing.T) {
	c := newCLI(t)
	base := t.TempDir()
	site, mp := filepath.Join(base, "site"), filepath.Join(base, "mp")
	os.Mkdir(site, 0o755)
	put(t, site, "index.html", "v1")
	if _, errOut, code := c.run("preset", "add", "Site", "32M", "--mirror", site, "--in-place"); code != 0 {
		t.Fatalf("preset add: exit %d %s", code, errOut)
	}
	for _, tt := range []struct {
		args []string
		why  string
	}{
		{[]string{"create", "M8", "32M", "--mirror", site, "--in-place", "--mount-point", mp}, "--in-place and --mount-point"},
		{[]string{"create", "M8", "32M", "--in-place", "--mount-point", mp}, "--in-place goes with --mirror"},
		{[]string{"create", "M8", "32M", "--keep", "--in-place"}, "--in-place goes with --mirror"},
		{[]string{"create", "M8", "32M", "--keep", "--mirror", site}, "--keep and --mirror"},
		{[]string{"create", "M8", "32M", "--mirror", site, "--mount-point", site}, "mirrored into itself"},
		{[]string{"create", "M8", "32M", "--mirror", site, "--mount-point", filepath.Join(site, "ram")}, "mirrored into itself"},
		{[]string{"create", "M8", "32M", "--mirror", site, "--mount-point", base}, "mirrored into itself"},
		{[]string{"create", "M8", "32M", "--keep", "--create-folder"}, "--create-folder goes with --mirror"},
		{[]string{"create", "M8", "32M", "--keep", "--set-aside-kept"}, "--set-aside-kept goes with --mirror"},
		{[]string{"create", "M8", "32M", "--snapshots", "3"}, "--snapshots and --save-every need"},
		{[]string{"create", "M8", "32M", "--compress"}, "--compress needs"},
		{[]string{"preset", "add", "M8", "32M", "--mirror", site, "--in-place", "--mount-point", mp}, "--in-place and --mount-point"},
		{[]string{"preset", "add", "M8", "32M", "--mirror", site, "--mount-point", filepath.Join(site, "ram")}, "mirrored into itself"},
		{[]string{"preset", "edit", "Site", "--mount-point", mp}, "--in-place and --mount-point"},
		{[]string{"keep", "Scratch", "--create-folder"}, "--create-folder goes with --mirror"},
	} {
		t.Run(strings.Join(tt.args[:2], " ")+" "+tt.why, func(t *testing.T) {
			mounts, data := mountsAt(t, c.root, base, c.home), stateOf(t, c.home)
			out, errOut, code := c.run(tt.args...)
			if code != exitUsage || !strings.Contains(errOut, tt.why) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Fatalf("rambar %q: exit %d, stderr %q; want exit %d and one line saying %q", tt.args, code, errOut, exitUsage, tt.why)
			}
			if strings.Contains(out, "Creating") {
				t.Errorf("a plan was printed before the refusal: %s", out)
			}
			if now := mountsAt(t, c.root, base, c.home); !slices.Equal(mounts, now) {
				t.Fatalf("the mount table changed: %v, then %v", mounts, now)
			}
			if now := stateOf(t, c.home); !slices.Equal(data, now) {
				t.Fatalf("the data folder or settings changed: %v, then %v", data, now)
			}
		})
	}
}

// TestCLIEjectWithAMountLeft: an eject after which a mount of the disk
// remains (a bind of it elsewhere; a plain disk and one in place, plain
// and forced) prints no "Ejected", exits non-zero and names the mount and
// what to do; once it is unmounted, nothing of the disk is listed.
func TestCLIEjectWithAMountLeft(t *testing.T) {
	for _, tt := range []struct {
		name   string
		create []string
		eject  []string
	}{
		{"plain", nil, []string{"eject", "Bound"}},
		{"plain, forced", nil, []string{"eject", "Bound", "--force"}},
		{"in place", []string{"--in-place"}, []string{"eject", "Bound"}},
		{"in place, forced, all", []string{"--in-place"}, []string{"eject", "--all", "--force"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			site, extra := filepath.Join(base, "site"), filepath.Join(base, "extra")
			c := inPlaceCLI(t, site)
			os.Mkdir(site, 0o755)
			os.Mkdir(extra, 0o755)
			put(t, site, "index.html", "v1")
			args := append([]string{"create", "Bound", "32M", "--mirror", site}, tt.create...)
			if out, errOut, code := c.run(args...); code != 0 {
				t.Fatalf("create: exit %d %s%s", code, out, errOut)
			}
			t.Cleanup(func() { syscall.Unmount(extra, syscall.MNT_DETACH) })
			if err := syscall.Mount(filepath.Join(c.root, "Bound"), extra, "", syscall.MS_BIND, ""); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := c.run(tt.eject...)
			if code == 0 || strings.Contains(out, "Ejected") || !strings.Contains(errOut, extra) || !strings.Contains(errOut, "umount") {
				t.Fatalf("eject with a bind left: exit %d\n%s%s\nwant no Ejected, a non-zero exit, the bind named and what to do", code, out, errOut)
			}
			if err := syscall.Unmount(extra, syscall.MNT_DETACH); err != nil {
				t.Fatal(err)
			}
			if left := mountsAt(t, c.root, site, c.home); len(left) > 0 {
				t.Fatalf("mounts left once the bind is gone: %v", left)
			}
			if out, _, _ := c.run("list"); strings.Contains(out, "Bound") {
				t.Fatalf("still listed:\n%s", out)
			}
		})
	}
}

// TestCLIHiddenCopyLeft: a hidden copy of a Mirror folder left in the data
// folder with no record (what an older RAMBar's eject left) is listed by
// doctor with what to do, and the next eject of that name removes it,
// saying so, with the folder untouched.
func TestCLIHiddenCopyLeft(t *testing.T) {
	base := t.TempDir()
	site := filepath.Join(base, "site")
	c := inPlaceCLI(t, site)
	os.Mkdir(site, 0o755)
	put(t, site, "index.html", "v1")
	hidden := filepath.Join(c.home, "data", "inplace", "m8")
	if err := os.MkdirAll(hidden, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(site, hidden, "", syscall.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(hidden, syscall.MNT_DETACH) })
	out, errOut, code := c.run("doctor")
	if code != 0 || !strings.Contains(out, hidden+" (mount)") || !strings.Contains(out, "umount -l "+hidden) {
		t.Fatalf("doctor: exit %d, want the hidden copy listed with what to do:\n%s%s", code, out, errOut)
	}
	out, errOut, code = c.run("eject", "M8")
	if code != 0 || strings.Contains(out, "Ejected") || !strings.Contains(errOut, "what an earlier eject left of it was removed") {
		t.Fatalf("eject M8: exit %d\n%s%s", code, out, errOut)
	}
	if left := mountsAt(t, hidden, site); len(left) > 0 {
		t.Fatalf("mounts left: %v", left)
	}
	if b, err := os.ReadFile(filepath.Join(site, "index.html")); err != nil || string(b) != "v1" {
		t.Fatalf("the folder changed: %q %v", b, err)
	}
	if out, _, _ := c.run("doctor"); strings.Contains(out, "(mount)") {
		t.Fatalf("doctor still lists a mount:\n%s", out)
	}
}
