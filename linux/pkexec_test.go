//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"rambar/internal/run"
	"rambar/internal/run/runtest"
	"rambar/ramdisk"
)

// desktopEngine is the engine as a desktop user sees it: not root, every
// privileged step through pkexec, here answered by a script.
func desktopEngine(t *testing.T, r run.Runner, root string) *Engine {
	e := New(r, WithMountRoot(root), withOwner(1000, 1000), WithZramRecords(filepath.Join(t.TempDir(), "zram")))
	e.asRoot, e.admin = false, pkexecAdmin{r: r}
	return e
}

func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := run.Resolve(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestPkexecCreateArgv(t *testing.T) {
	calls := func(root string, mountReply runtest.Reply) []runtest.Call {
		mp := filepath.Join(root, "Scratch")
		cs := []runtest.Call{
			{Argv: []string{"pkexec", tool(t, "mkdir"), "-p", "-m", "755", "--", root}},
			{Argv: []string{"pkexec", tool(t, "mkdir"), "-m", "700", "--", mp}},
			{Argv: []string{"pkexec", tool(t, "mount"), "-t", "tmpfs", "-o", "size=16777216,mode=0700,uid=1000,gid=1000,nosuid,nodev", "--", "rambar", mp}, Reply: mountReply},
		}
		if mountReply.Exit != 0 {
			cs = append(cs, runtest.Call{Argv: []string{"pkexec", tool(t, "rmdir"), "--", mp}})
		}
		return cs
	}
	tests := []struct {
		name  string
		reply runtest.Reply
		want  error
	}{
		{"ok", runtest.Reply{}, nil},
		{"dismissed", runtest.Reply{Exit: 126, Stderr: "Error executing command as another user: Request dismissed"}, ramdisk.ErrCancelled},
		{"not authorized", runtest.Reply{Exit: 127, Stderr: "Error executing command as another user: Not authorized"}, ramdisk.ErrNeedsAdmin},
		{"mount fails", runtest.Reply{Exit: 32, Stderr: "mount: /x: wrong fs type"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testRoot(t)
			e := desktopEngine(t, runtest.NewScript(t, calls(root, tt.reply)...), root)
			if c := e.Caps(); len(c.NeedsAdmin) == 0 || c.NeedsAdmin[0] != ramdisk.TmpFS {
				t.Errorf("Caps as a desktop user: NeedsAdmin %v", c.NeedsAdmin)
			}
			v, err := e.Create(ctx, plan(t, e, "Scratch", 16*ramdisk.MiB, ramdisk.TmpFS))
			switch {
			case tt.reply.Exit == 0:
				if err != nil || v.MountPoint != filepath.Join(root, "Scratch") || !v.Managed {
					t.Errorf("Create = %+v, %v", v, err)
				}
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Errorf("Create: %v, want %v", err, tt.want)
			case err == nil:
				t.Errorf("Create succeeded")
			}
		})
	}
}

func TestPkexecError(t *testing.T) {
	missing := &run.Error{Argv: []string{"pkexec"}, ExitCode: -1, Err: fmt.Errorf("pkexec: %w", run.ErrToolMissing)}
	tests := []struct {
		err  error
		want error
	}{
		{missing, ramdisk.ErrNeedsAdmin},
		{&run.Error{Argv: []string{"pkexec"}, ExitCode: 126}, ramdisk.ErrCancelled},
		{&run.Error{Argv: []string{"pkexec"}, ExitCode: 127}, ramdisk.ErrNeedsAdmin},
		{&run.Error{Argv: []string{"pkexec"}, ExitCode: 32}, nil},
	}
	for _, tt := range tests {
		got := pkexecError(tt.err)
		if tt.want != nil && !errors.Is(got, tt.want) || tt.want == nil && got != tt.err {
			t.Errorf("pkexecError(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestPkexecEjectBusy: umount's "target is busy" through pkexec becomes a
// BusyError naming the real holder of a real mount.
func TestPkexecEjectBusy(t *testing.T) {
	var argv0 [][]string
	r := runtest.Func(func(argv []string, stdin string) runtest.Reply {
		argv0 = append(argv0, argv)
		return runtest.Reply{Exit: 32, Stderr: "umount: " + argv[len(argv)-1] + ": target is busy."}
	})
	e := desktopEngine(t, r, testRoot(t))
	mp := filepath.Join(e.root, "Held")
	if err := os.MkdirAll(mp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(mountSource, mp, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Unmount(mp, syscall.MNT_DETACH) })
	v := ramdisk.Volume{Name: "Held", MountPoint: mp, FS: ramdisk.TmpFS}
	hold(t, v)
	err := e.Eject(ctx, v, false)
	var be *ramdisk.BusyError
	if !errors.As(err, &be) || len(be.Holders) == 0 || be.Holders[0].Command != "sleep" {
		t.Errorf("Eject: %v, want a BusyError naming sleep", err)
	}
	want := []string{"pkexec", tool(t, "umount"), "--", mp}
	if len(argv0) != 1 || fmt.Sprint(argv0[0]) != fmt.Sprint(want) {
		t.Errorf("ran %q, want %q", argv0, want)
	}
}

// TestPkexecMissingNeedsAdmin: not root and no pkexec (the real system
// runner cannot find it) is ErrNeedsAdmin, with nothing made.
func TestPkexecMissingNeedsAdmin(t *testing.T) {
	root := testRoot(t)
	e := desktopEngine(t, noPkexec{}, root)
	_, err := e.Create(ctx, plan(t, e, "Scratch", 16*ramdisk.MiB, ramdisk.TmpFS))
	if !errors.Is(err, ramdisk.ErrNeedsAdmin) || !strings.Contains(err.Error(), "sudo") {
		t.Errorf("Create without root or pkexec: %v, want ErrNeedsAdmin saying to use sudo", err)
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("mount root made anyway: %v", err)
	}
}

// noPkexec is the system runner on a machine without pkexec: it asks for a
// tool name that is not installed instead.
type noPkexec struct{}

func (noPkexec) Run(c context.Context, cmd run.Cmd) (run.Result, error) {
	if len(cmd.Argv) > 0 && cmd.Argv[0] == "pkexec" {
		cmd.Argv = append([]string{"pkexec-not-installed-rambar-test"}, cmd.Argv[1:]...)
	}
	return run.System().Run(c, cmd)
}

// fakeSys is a /sys with zram-control and one zram device's comp_algorithm,
// for argv tests that must not touch the real devices.
func fakeSys(t *testing.T, n int) string {
	dir := t.TempDir()
	for path, data := range map[string]string{
		"class/zram-control/hot_add":                  fmt.Sprintf("%d\n", n),
		fmt.Sprintf("block/zram%d/comp_algorithm", n): "[lzo-rle] lzo lz4 zstd\n",
	} {
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestPkexecCreateZRAMArgv(t *testing.T) {
	for _, dismissed := range []bool{false, true} {
		t.Run(fmt.Sprintf("mount dismissed=%v", dismissed), func(t *testing.T) {
			root := testRoot(t)
			sysDir := fakeSys(t, 7)
			mp := filepath.Join(root, "Packed")
			pk := func(name string, args ...string) []string { return append([]string{"pkexec", tool(t, name)}, args...) }
			mountReply := runtest.Reply{}
			if dismissed {
				mountReply = runtest.Reply{Exit: 126, Stderr: "Error executing command as another user: Request dismissed"}
			}
			calls := []runtest.Call{
				{Argv: pk("mkdir", "-p", "-m", "755", "--", root)},
				{Argv: pk("mkdir", "-m", "700", "--", mp)},
				{Argv: pk("cat", "--", sysDir+"/class/zram-control/hot_add"), Reply: runtest.Reply{Stdout: "7\n"}},
				{Argv: pk("tee", "--", sysDir+"/block/zram7/comp_algorithm")},
				{Argv: pk("tee", "--", sysDir+"/block/zram7/disksize")},
				{Argv: pk("mkfs.ext4", "-q", "-F", "-L", "rambar", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", "/dev/zram7")},
				{Argv: pk("mount", "-t", "ext4", "-o", "nosuid,nodev,discard", "--", "/dev/zram7", mp), Reply: mountReply},
			}
			if dismissed {
				calls = append(calls,
					runtest.Call{Argv: pk("tee", "--", sysDir+"/block/zram7/reset")},
					runtest.Call{Argv: pk("tee", "--", sysDir+"/class/zram-control/hot_remove")},
					runtest.Call{Argv: pk("rmdir", "--", mp)})
			} else {
				calls = append(calls,
					runtest.Call{Argv: pk("chown", "1000:1000", "--", mp)},
					runtest.Call{Argv: pk("chmod", "700", "--", mp)})
			}
			var stdin []string
			s := runtest.NewScript(t, calls...)
			r := runtest.Func(func(argv []string, in string) runtest.Reply {
				if in != "" {
					stdin = append(stdin, in)
				}
				res, err := s.Run(ctx, run.Cmd{Argv: argv})
				var re *run.Error
				if errors.As(err, &re) {
					return runtest.Reply{Stdout: string(re.Stdout), Stderr: string(re.Stderr), Exit: re.ExitCode}
				}
				return runtest.Reply{Stdout: string(res.Stdout)}
			})
			e := desktopEngine(t, r, root)
			e.sys = sysDir
			v, err := e.Create(ctx, plan(t, e, "Packed", 64*ramdisk.MiB, ramdisk.ZRAM))
			wantIn := []string{"lz4", "67108864"}
			if dismissed {
				wantIn = append(wantIn, "1", "7")
				if !errors.Is(err, ramdisk.ErrCancelled) {
					t.Errorf("Create: %v, want ErrCancelled", err)
				}
			} else if err != nil || v.Device != "/dev/zram7" || v.FS != ramdisk.ZRAM {
				t.Errorf("Create = %+v, %v", v, err)
			}
			if fmt.Sprint(stdin) != fmt.Sprint(wantIn) {
				t.Errorf("wrote %q to sysfs, want %q", stdin, wantIn)
			}
			if ents, err := os.ReadDir(e.records); err != nil || len(ents) != 0 {
				t.Errorf("zram records after Create: %v, %v; want an empty folder", ents, err)
			}
		})
	}
}

// TestPkexecHideFolderArgv: a desktop user's hidden copy is one pkexec
// mkdir and two pkexec mount calls (bind, then make-private); a refused
// make-private takes the bind away again, lazily.
func TestPkexecHideFolderArgv(t *testing.T) {
	folder, hidden := "/home/ann/Sites/site", filepath.Join(t.TempDir(), "inplace", "site")
	for _, failPrivate := range []bool{false, true} {
		cs := []runtest.Call{
			{Argv: []string{"pkexec", tool(t, "mkdir"), "-m", "700", "--", hidden}},
			{Argv: []string{"pkexec", tool(t, "mount"), "--bind", "--", folder, hidden}},
			{Argv: []string{"pkexec", tool(t, "mount"), "--make-private", "--", hidden}},
		}
		if failPrivate {
			cs[2].Reply = runtest.Reply{Exit: 32, Stderr: "mount: " + hidden + ": not mount point or bad option."}
			cs = append(cs,
				runtest.Call{Argv: []string{"pkexec", tool(t, "umount"), "--lazy", "--", hidden}},
				runtest.Call{Argv: []string{"pkexec", tool(t, "rmdir"), "--", hidden}})
		}
		e := desktopEngine(t, runtest.NewScript(t, cs...), testRoot(t))
		err := e.HideFolder(context.Background(), folder, hidden)
		if failPrivate == (err == nil) {
			t.Errorf("make-private failing %v: HideFolder: %v", failPrivate, err)
		}
	}
}
