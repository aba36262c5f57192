//go:build linux

package linux

import (
	"context"
	"errors"
	"fmt"
	"io"
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

// privileged does what the pkexec'd tools of an argv test would, after
// script has checked the call and said it succeeds: folders are made and
// removed for real, and mounts are written into a mount table of their
// own, which the engine reads (e.proc), instead of mounted. A mount's
// target is the folder given as its standard input (/proc/self/fd/0).
func privileged(t *testing.T, e *Engine, script run.Runner) runtest.CmdFunc {
	e.proc = t.TempDir()
	table := filepath.Join(e.proc, "self", "mountinfo")
	os.MkdirAll(filepath.Dir(table), 0o755)
	os.WriteFile(table, nil, 0o644)
	id := 100
	return func(c run.Cmd) runtest.Reply {
		res, err := script.Run(ctx, run.Cmd{Argv: c.Argv, Stdin: c.Stdin})
		var re *run.Error
		if errors.As(err, &re) {
			return runtest.Reply{Stdout: string(re.Stdout), Stderr: string(re.Stderr), Exit: re.ExitCode}
		}
		argv, last := c.Argv, c.Argv[len(c.Argv)-1]
		switch filepath.Base(argv[1]) {
		case "mkdir":
			os.MkdirAll(last, 0o700)
		case "rmdir":
			os.Remove(last)
		case "mount":
			f, ok := c.Stdin.(*os.File)
			if !ok || last != "/proc/self/fd/0" {
				t.Errorf("mount without the folder as its standard input: %q", argv)
				return runtest.Reply{Exit: 32}
			}
			id++
			b, _ := os.ReadFile(table)
			line := fmt.Sprintf("%d 1 0:%d / %s rw,nosuid,nodev - %s %s rw\n", id, id, f.Name(), argv[len(argv)-6], argv[len(argv)-2])
			os.WriteFile(table, append(b, line...), 0o644)
		}
		return runtest.Reply{Stdout: string(res.Stdout)}
	}
}

func TestPkexecCreateArgv(t *testing.T) {
	calls := func(root string, mountReply runtest.Reply) []runtest.Call {
		mp := filepath.Join(root, "Scratch")
		cs := []runtest.Call{
			{Argv: []string{"pkexec", tool(t, "mkdir"), "-p", "-m", "755", "--", root}},
			{Argv: []string{"pkexec", tool(t, "mkdir"), "-m", "700", "--", mp}},
			{Argv: []string{"pkexec", tool(t, "mount"), "--no-canonicalize", "-t", "tmpfs", "-o", "size=16777216,mode=0700,uid=1000,gid=1000,nosuid,nodev", "--", "rambar", "/proc/self/fd/0"}, Reply: mountReply},
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
			e := desktopEngine(t, nil, root)
			e.admin = pkexecAdmin{r: privileged(t, e, runtest.NewScript(t, calls(root, tt.reply)...))}
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

// fakeDD does what `pkexec dd if=hot_add of=RECORD seek=OFF ...` would
// when hot_add answers answer, and returns argv with the record's path and
// offset as RECORD and AFTER-LINE (they change from run to run).
func fakeDD(t *testing.T, argv []string, answer string) []string {
	t.Helper()
	out := append([]string(nil), argv...)
	var path string
	var off int64
	for i, a := range out {
		switch {
		case strings.HasPrefix(a, "of="):
			path, out[i] = strings.TrimPrefix(a, "of="), "of=RECORD"
		case strings.HasPrefix(a, "seek="):
			fmt.Sscan(strings.TrimPrefix(a, "seek="), &off)
			out[i] = "seek=AFTER-LINE"
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("dd of=%s: %v", path, err)
	}
	defer f.Close()
	b, _ := os.ReadFile(path)
	if int(off) != strings.IndexByte(string(b), '\n')+1 {
		t.Errorf("dd seek=%d: the record's line is %d bytes", off, strings.IndexByte(string(b), '\n')+1)
	}
	if _, err := f.WriteAt([]byte(answer), off); err != nil {
		t.Fatal(err)
	}
	return out
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
				{Argv: pk("dd", "if="+sysDir+"/class/zram-control/hot_add", "of=RECORD", "bs=16", "count=1", "seek=AFTER-LINE",
					"oflag=seek_bytes,nofollow", "conv=notrunc", "status=none")},
				{Argv: pk("tee", "--", sysDir+"/block/zram7/comp_algorithm")},
				{Argv: pk("tee", "--", sysDir+"/block/zram7/disksize")},
				{Argv: pk("mkfs.ext4", "-q", "-F", "-L", "rambar", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0", "/dev/zram7")},
				{Argv: pk("mount", "--no-canonicalize", "-t", "ext4", "-o", "nosuid,nodev,discard", "--", "/dev/zram7", "/proc/self/fd/0"), Reply: mountReply},
			}
			if dismissed {
				calls = append(calls,
					runtest.Call{Argv: pk("tee", "--", sysDir+"/block/zram7/reset")},
					runtest.Call{Argv: pk("tee", "--", sysDir+"/class/zram-control/hot_remove")},
					runtest.Call{Argv: pk("rmdir", "--", mp)})
			} else {
				calls = append(calls,
					runtest.Call{Argv: pk("chown", "-h", "1000:1000", "--", mp)},
					runtest.Call{Argv: pk("chmod", "700", "--", mp)})
			}
			var stdin []string
			s := runtest.NewScript(t, calls...)
			e := desktopEngine(t, nil, root)
			r := privileged(t, e, runtest.CmdFunc(func(c run.Cmd) runtest.Reply {
				argv := c.Argv
				if in, ok := c.Stdin.(*strings.Reader); ok {
					b, _ := io.ReadAll(in)
					stdin = append(stdin, string(b))
				}
				if len(argv) > 2 && filepath.Base(argv[1]) == "dd" {
					argv = fakeDD(t, argv, "7\n")
				}
				res, err := s.Run(ctx, run.Cmd{Argv: argv})
				var re *run.Error
				if errors.As(err, &re) {
					return runtest.Reply{Stdout: string(re.Stdout), Stderr: string(re.Stderr), Exit: re.ExitCode}
				}
				return runtest.Reply{Stdout: string(res.Stdout)}
			}))
			e.admin = pkexecAdmin{r: r}
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
