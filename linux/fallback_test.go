//go:build linux

package linux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"rambar/internal/run"
	"rambar/internal/run/runtest"
	"rambar/ramdisk"
)

// ownerOf is the uid and permissions of path itself (not followed).
func ownerOf(t *testing.T, path string) (int, os.FileMode) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(st.Sys().(*syscall.Stat_t).Uid), st.Mode().Perm()
}

// TestFallbackLink: a plan with a cache fallback leaves the link
// MP/Caches -> fallback below the mount point, both the disk owner's (here
// uid 1000 behind sudo); the folder stays at eject while the fallback
// exists and goes with the link once it does not. A link of the owner's
// that leads elsewhere is replaced; anything else there is refused, and a
// planted link (another uid's) is never followed.
func TestFallbackLink(t *testing.T) {
	root := testRoot(t)
	e := New(nil, WithMountRoot(root), withOwner(1000, 1000))
	fb := filepath.Join(t.TempDir(), "cache-empty", "keep")
	os.MkdirAll(fb, 0o700)
	p := plan(t, e, "Keep", 16*ramdisk.MiB, ramdisk.TmpFS)
	p.CacheFallback = fb
	mp := filepath.Join(root, "Keep")
	link := filepath.Join(mp, ramdisk.FallbackLink)

	v := mustCreate(t, e, p)
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	if dest, err := os.Readlink(link); err != nil || dest != fb {
		t.Fatalf("after eject: %s -> %q (%v), want %s", link, dest, err, fb)
	}
	if uid, perm := ownerOf(t, mp); uid != 1000 || perm != 0o700 {
		t.Errorf("mount point below the disk: uid %d mode %o, want 1000 and 700", uid, perm)
	}
	if uid, _ := ownerOf(t, link); uid != 1000 {
		t.Errorf("link owner %d, want 1000", uid)
	}

	os.Remove(link)
	os.Symlink("/elsewhere", link)
	os.Lchown(link, 1000, 1000)
	v = mustCreate(t, e, p) // the owner's link to an old place: replaced
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	if dest, _ := os.Readlink(link); dest != fb {
		t.Errorf("the owner's old link was not replaced: -> %q", dest)
	}

	victim := filepath.Join(t.TempDir(), "victim")
	os.Mkdir(victim, 0o755)
	for _, tt := range []struct {
		name  string
		plant func()
	}{
		{"another user's link", func() { os.Remove(link); os.Symlink(victim, link); os.Lchown(link, 65534, 65534) }},
		{"a folder", func() { os.Remove(link); os.Mkdir(link, 0o700) }},
		{"a file beside the link", func() {
			os.Remove(link)
			os.Symlink(fb, link)
			os.Lchown(link, 1000, 1000)
			os.WriteFile(filepath.Join(mp, "x"), nil, 0o600)
		}},
	} {
		tt.plant()
		if _, err := e.Create(ctx, p); !errors.Is(err, ramdisk.ErrExists) || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("%s: Create = %v, want refused as not empty", tt.name, err)
		}
		if ents, _ := os.ReadDir(victim); len(ents) != 0 {
			t.Errorf("%s: the planted link was followed: %v", tt.name, ents)
		}
		if uid, _ := ownerOf(t, victim); uid != 0 {
			t.Errorf("%s: the planted link's target was given to uid %d", tt.name, uid)
		}
		os.RemoveAll(link)
		os.Remove(filepath.Join(mp, "x"))
	}

	v = mustCreate(t, e, p)
	os.RemoveAll(filepath.Dir(fb)) // no cache is on the disk any more
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(mp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a link that leads nowhere: %s stays (%v), want it removed", mp, err)
	}
}

// TestPkexecFallbackArgv: as a desktop user the fallback adds no password
// prompt: the mount point is made the user's in the step that makes it
// (pkexec install -d -o -g instead of mkdir), the link is made as the
// user, and eject does not try to remove a mount point that holds a live
// fallback link. A root-owned mount point an older RAMBar left is given to
// the user once (pkexec chown). The script does each privileged step for
// real (the test is root), as pkexec would.
func TestPkexecFallbackArgv(t *testing.T) {
	root := testRoot(t)
	var ran []string
	r := runtest.CmdFunc(func(c run.Cmd) runtest.Reply {
		argv := c.Argv
		ran = append(ran, filepath.Base(argv[1]))
		args := argv[len(argv)-1]
		var err error
		switch filepath.Base(argv[1]) {
		case "mkdir": // mkdir [-p] -m MODE -- DIR
			m, _ := strconv.ParseUint(argv[len(argv)-3], 8, 32)
			if err = os.MkdirAll(args, 0o700); err == nil {
				err = os.Chmod(args, os.FileMode(m))
			}
		case "install": // install -d -m MODE -o UID -g GID -- DIR
			m, _ := strconv.ParseUint(argv[4], 8, 32)
			u, _ := strconv.Atoi(argv[6])
			g, _ := strconv.Atoi(argv[8])
			if err = os.Mkdir(args, os.FileMode(m)); err == nil {
				os.Chmod(args, os.FileMode(m))
				err = os.Chown(args, u, g)
			}
		case "chown": // chown -h UID:GID -- PATH
			ids := strings.Split(argv[3], ":")
			u, _ := strconv.Atoi(ids[0])
			g, _ := strconv.Atoi(ids[1])
			err = os.Lchown(args, u, g)
		case "mount": // mount ... SOURCE /proc/self/fd/0, the folder its standard input
			if f, ok := c.Stdin.(*os.File); ok && args == "/proc/self/fd/0" {
				err = syscall.Mount(argv[len(argv)-2], "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), "tmpfs", 0, "size=16m,mode=0700")
			} else {
				err = fmt.Errorf("mount without the folder as its standard input: %q", argv)
			}
		case "umount":
			err = syscall.Unmount(args, 0)
		case "rmdir":
			err = syscall.Rmdir(args)
		}
		if err != nil {
			return runtest.Reply{Exit: 1, Stderr: err.Error()}
		}
		return runtest.Reply{}
	})
	e := desktopEngine(t, r, root)
	fb := t.TempDir()
	p := plan(t, e, "Desk", 16*ramdisk.MiB, ramdisk.TmpFS)
	p.CacheFallback = fb
	v, err := e.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if want := "[mkdir install mount]"; fmt.Sprint(ran) != want {
		t.Errorf("Create ran %v, want %s", ran, want)
	}
	ran = nil
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	if want := "[umount]"; fmt.Sprint(ran) != want {
		t.Errorf("Eject ran %v, want %s (the mount point stays)", ran, want)
	}
	ran = nil
	if v, err = e.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if want := "[mount]"; fmt.Sprint(ran) != want {
		t.Errorf("Create over the kept mount point ran %v, want %s", ran, want)
	}
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
	if uid, _ := ownerOf(t, filepath.Join(root, "Desk")); uid != 1000 {
		t.Errorf("mount point owner %d, want the user's 1000", uid)
	}

	os.Mkdir(filepath.Join(root, "Old"), 0o700) // root's, empty: an older RAMBar's
	ran = nil
	p = plan(t, e, "Old", 16*ramdisk.MiB, ramdisk.TmpFS)
	p.CacheFallback = fb
	if v, err = e.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if want := "[chown mount]"; fmt.Sprint(ran) != want {
		t.Errorf("Create over an older root-owned mount point ran %v, want %s", ran, want)
	}
	if err := e.Eject(ctx, v, false); err != nil {
		t.Fatal(err)
	}
}

// TestDropMountPoint: an ejected disk's mount point goes when it is empty
// or holds only a link that leads nowhere; a folder holding anything else,
// or a link a cache still leads through, stays; and a link planted at the
// mount point's place (a user's own mount root under sudo) is never
// followed: the dangling link in the folder it names is left alone.
func TestDropMountPoint(t *testing.T) {
	elsewhere := t.TempDir()
	tests := []struct {
		name  string
		make  func(t *testing.T, mp string)
		gone  bool
		check func(t *testing.T)
	}{
		{"empty", func(t *testing.T, mp string) { os.Mkdir(mp, 0o755) }, true, nil},
		{"a dangling fallback link", func(t *testing.T, mp string) {
			os.Mkdir(mp, 0o755)
			os.Symlink("/nonexistent/rambar-cache", filepath.Join(mp, ramdisk.FallbackLink))
		}, true, nil},
		{"a fallback a cache leads through", func(t *testing.T, mp string) {
			os.Mkdir(mp, 0o755)
			os.Symlink(t.TempDir(), filepath.Join(mp, ramdisk.FallbackLink))
		}, false, nil},
		{"a file of the user's", func(t *testing.T, mp string) {
			os.Mkdir(mp, 0o755)
			os.WriteFile(filepath.Join(mp, "notes.txt"), []byte("mine"), 0o644)
		}, false, nil},
		{"a planted link", func(t *testing.T, mp string) {
			os.Symlink("/nonexistent/rambar-cache", filepath.Join(elsewhere, ramdisk.FallbackLink))
			os.Symlink(elsewhere, mp)
		}, false, func(t *testing.T) {
			if _, err := os.Lstat(filepath.Join(elsewhere, ramdisk.FallbackLink)); err != nil {
				t.Errorf("the link in the folder the planted link names was removed: %v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testRoot(t)
			e := New(run.System(), WithMountRoot(root))
			mp := filepath.Join(root, "Build")
			if err := os.MkdirAll(root, 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, mp)
			if _, err := os.Lstat(mp); err != nil {
				t.Fatal(err)
			}
			e.DropMountPoint(t.Context(), "Build")
			_, err := os.Lstat(mp)
			if gone := errors.Is(err, os.ErrNotExist); gone != tt.gone {
				t.Errorf("mount point gone: %v, want %v (%v)", gone, tt.gone, err)
			}
			if tt.check != nil {
				tt.check(t)
			}
		})
	}
}
