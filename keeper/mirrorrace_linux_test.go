//go:build linux

package keeper

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"rambar/foldersync"
	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// These tests run this test binary again as child processes
// (TestMirrorSafeChild): savers, loaders killed halfway, and an attacker
// running as another user.
const (
	envSafeChild = "RAMBAR_MSAFE_CHILD" // save, writeback, load, refresh or attack
	envSafeData  = "RAMBAR_MSAFE_DATA"
	envSafeDisk  = "RAMBAR_MSAFE_DISK"
	envSafeArg   = "RAMBAR_MSAFE_ARG"
)

// TestMirrorSafeChild is the child's body; it does nothing in a normal run.
func TestMirrorSafeChild(t *testing.T) {
	mode := os.Getenv(envSafeChild)
	if mode == "" {
		return
	}
	k := NewKeeper(os.Getenv(envSafeData))
	k.IsMounted = func(string) bool { return true }
	v := ramdisk.Volume{Name: "Site", MountPoint: os.Getenv(envSafeDisk)}
	var err error
	switch mode {
	case "save":
		n := os.Getenv(envSafeArg)
		if err = os.WriteFile(filepath.Join(v.MountPoint, "child-"+n), []byte(n), 0o644); err == nil {
			_, err = k.Save(context.Background(), v, SaveOptions{})
		}
	case "writeback":
		_, err = k.Save(context.Background(), v, SaveOptions{})
	case "load":
		_, err = k.Load(context.Background(), v, nil)
	case "refresh":
		_, err = k.Refresh(context.Background(), v, nil)
	case "attack":
		err = attack(os.Getenv(envSafeArg))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, mode+":", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func safeChild(t *testing.T, bin, mode, data, disk, arg string, cred *syscall.Credential) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestMirrorSafeChild$")
	cmd.Env = append(os.Environ(), envSafeChild+"="+mode, envSafeData+"="+data, envSafeDisk+"="+disk,
		envSafeArg+"="+arg, "GORACE=atexit_sleep_ms=0")
	cmd.Stderr = os.Stderr
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a test that failed before waiting leaves no child running
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd
}

// Thirty saves of one mirrored disk at once, from separate processes, each
// after adding its own file: they take turns, and the folder ends with
// every file, none lost to an interleaved write-back.
func TestMirrorThirtyConcurrentSaves(t *testing.T) {
	f := newMirrorFill(t, func(folder string) { crashTree(t, folder, 3, 300) })
	want := digest(t, f.folder)
	var cmds []*exec.Cmd
	for i := 0; i < 30; i++ {
		cmds = append(cmds, safeChild(t, os.Args[0], "save", f.k.Data, f.v.MountPoint, strconv.Itoa(i), nil))
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("save %d: %v", i, err)
		}
	}
	f.save()
	got := digest(t, f.folder)
	for i := 0; i < 30; i++ {
		p := "child-" + strconv.Itoa(i)
		if got[p] == "" {
			t.Errorf("%s lost", p)
		}
		delete(got, p)
	}
	delete(want, ".")
	delete(got, ".")
	sameTree(t, want, got)
	f.noLeftovers()
}

// kill -9 while a Mirror disk loads, many times; then what eject does (a
// save): it is refused as incomplete, or the load had finished. The folder
// keeps every file either way.
func TestMirrorKillDuringLoadThenEject(t *testing.T) {
	base := tmpfsAt(t, "", "256m")
	folder := filepath.Join(base, "site")
	crashTree(t, folder, 7, 3000)
	want, err := tree.DigestOf(folder, false)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(base, "data")
	k := NewKeeper(data)
	if _, err := k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	disk := filepath.Join(base, "disk")
	fresh := func() ramdisk.Volume {
		unix.Unmount(disk, unix.MNT_DETACH)
		tmpfsAt(t, disk, "128m")
		return ramdisk.Volume{Name: "Site", MountPoint: disk}
	}
	fresh()
	start := time.Now()
	if err := safeChild(t, os.Args[0], "load", data, disk, "", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	full := time.Since(start)
	r := rand.New(rand.NewSource(time.Now().UnixNano()))
	incomplete, complete := 0, 0
	for i := 0; i < 16 || (incomplete == 0 && i < 48); i++ {
		v := fresh()
		c := safeChild(t, os.Args[0], "load", data, disk, "", nil)
		time.Sleep(time.Duration(r.Int63n(int64(full))))
		c.Process.Kill()
		c.Wait()
		k.IsMounted = func(string) bool { return true }
		if dirty, _ := k.Dirty(v); dirty {
			_, err := k.Save(context.Background(), v, SaveOptions{})
			switch {
			case errors.Is(err, ErrIncomplete):
				incomplete++
				if !strings.Contains(err.Error(), "--no-save") {
					t.Errorf("the refusal does not say how to reload: %v", err)
				}
			case errors.Is(err, ErrRefused) && strings.Contains(err.Error(), "no RAMBar mark"):
				// Killed before the load put its mark on the disk (the mark,
				// an attribute, since the identity change): the disk is not
				// tied to the folder and is refused as a stranger.
				incomplete++
			case err != nil:
				t.Fatalf("round %d: %v", i, err)
			default:
				complete++
			}
		}
		got, err := tree.DigestOf(folder, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := want.Diff(got, 5); len(d) > 0 {
			t.Fatalf("round %d: the folder lost or changed %v (%d of %d files left)", i, d, got.Files(), want.Files())
		}
	}
	t.Logf("%d loads cut short and refused, %d finished", incomplete, complete)
	if incomplete == 0 {
		t.Error("no kill landed during a load")
	}
}

// A write-back that fails (the folder's file system is full) leaves the
// folder as it was and the disk dirty, so eject does not go on; the disk's
// state is in the store.
func TestMirrorFailedWriteBack(t *testing.T) {
	base := tmpfsAt(t, "", "64m")
	small := tmpfsAt(t, filepath.Join(base, "small"), "1m")
	folder := filepath.Join(small, "site")
	write(t, folder, "a.txt", "a")
	k := NewKeeper(filepath.Join(base, "data"))
	if _, err := k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Site", MountPoint: tmpfsAt(t, "", "16m")}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	before := digest(t, folder)
	write(t, v.MountPoint, "big.bin", strings.Repeat("x", 3<<20))
	for i := 0; i < 2; i++ {
		r, err := k.Save(context.Background(), v, SaveOptions{})
		if !errors.Is(err, ramdisk.ErrNoSpace) || !strings.Contains(err.Error(), "snapshot "+r.Snapshot) {
			t.Fatalf("save %d onto a full folder: %v", i, err)
		}
		sameTree(t, before, digest(t, folder))
		if dirty, _ := k.Dirty(v); !dirty {
			t.Fatal("not dirty after a failed write-back: eject would go on")
		}
	}
	ents, _ := os.ReadDir(small)
	if len(ents) != 1 {
		t.Errorf("left beside the folder: %v", ents)
	}
	if snaps, _ := k.Snapshots("Site"); len(snaps) < 2 || !snaps[len(snaps)-1].Current || snaps[len(snaps)-1].Files != 2 {
		t.Errorf("the disk's state is not the store's current snapshot: %+v", snaps)
	}
}

// attack runs as another user: it watches drop (a folder inside the
// mirror folder that it can write) for the write-back's temporary names,
// moves each it finds aside, puts a symlink to a root-only folder under
// its name, and reads whatever it can get at. It stops when drop holds
// "stop" and writes what it read to drop/../../loot.
func attack(drop string) error {
	target := filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(drop))), "rootonly")
	var loot []byte
	grab := func(p string) {
		if b, err := os.ReadFile(p); err == nil {
			loot = append(loot, b...)
		}
	}
	for n := 0; ; n++ {
		if _, err := os.Stat(filepath.Join(drop, "stop")); err == nil {
			break
		}
		ents, _ := os.ReadDir(drop)
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), foldersync.TempPrefix) {
				continue
			}
			p := filepath.Join(drop, e.Name())
			grab(p)
			stolen := filepath.Join(drop, fmt.Sprintf("stolen-%d", n))
			if os.Rename(p, stolen) == nil {
				os.Symlink(target, p)
				grab(stolen)
			}
		}
		for _, name := range []string{"secret.txt", "../secret.txt", "../sub/secret.txt"} {
			grab(filepath.Join(drop, name))
		}
	}
	return os.WriteFile(filepath.Join(filepath.Dir(filepath.Dir(drop)), "loot"), loot, 0o644)
}

// As root, mirroring a folder holding a folder another user can write
// (drop, mode 0777): that user races the write-back's temporary names
// there, moving them aside and putting symlinks to a root-only folder
// under their names, while saves run (a real process under uid 65534, and
// the same at the worst moment, right before the first rename). Nothing
// is written into the symlink's target, the attacker reads nothing of the
// private files, a path whose temporary file was taken keeps its old
// version until a later save writes it, and once the attacker stops the
// folder is the disk's tree.
func TestMirrorHostileTempSwap(t *testing.T) {
	base := tmpfsAt(t, "", "64m")
	os.Chmod(filepath.Dir(base), 0o755) // t.TempDir's: uid 65534 must reach the binary
	parent := filepath.Join(base, "shared")
	os.MkdirAll(parent, 0o777)
	os.Chmod(parent, 0o777)
	target := filepath.Join(base, "rootonly")
	os.MkdirAll(target, 0o700)
	write(t, target, "canary", "root's")
	folder := filepath.Join(parent, "site")
	drop := filepath.Join(folder, "drop")
	write(t, folder, "secret.txt", "PRIVATE-BYTES")
	write(t, folder, "sub/secret.txt", "PRIVATE-BYTES too")
	write(t, drop, "secret.txt", "PRIVATE in drop")
	crashTree(t, filepath.Join(folder, "sub"), 5, 400)
	for _, p := range []string{"secret.txt", "drop/secret.txt"} {
		os.Chmod(filepath.Join(folder, p), 0o600)
	}
	os.Chmod(filepath.Join(folder, "sub"), 0o700)
	os.Chmod(drop, 0o777)
	k := NewKeeper(filepath.Join(base, "data"))
	if _, err := k.Setup("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Site", MountPoint: tmpfsAt(t, "", "16m")}
	if _, err := k.Load(context.Background(), v, nil); err != nil {
		t.Fatal(err)
	}
	// The test binary, where uid 65534 can run it.
	bin := filepath.Join(base, "bin", "mirror.test")
	copyExe(t, os.Args[0], bin)
	attacker := safeChild(t, bin, "attack", "", "", drop, &syscall.Credential{Uid: 65534, Gid: 65534})
	// The worst moment too: every temporary name in drop swapped right
	// before the renames.
	swapped := 0
	k.placing = func(w *foldersync.PathWrite) {
		for _, it := range w.Items {
			if dir, _ := tree.SplitRel(it.Path); dir == "drop" && it.Tmp != "" {
				p := filepath.Join(drop, it.Tmp)
				if os.Rename(p, filepath.Join(drop, "moved-"+it.Tmp)) == nil {
					os.Symlink(target, p)
					swapped++
				}
			}
		}
	}
	for i := 0; i < 20; i++ {
		if i == 10 {
			k.placing = nil // the racing attacker alone
		}
		write(t, v.MountPoint, fmt.Sprintf("round%d.txt", i), "PRIVATE round")
		write(t, v.MountPoint, "secret.txt", fmt.Sprintf("PRIVATE-BYTES %d", i))
		write(t, v.MountPoint, "drop/secret.txt", fmt.Sprintf("PRIVATE in drop %d", i))
		write(t, v.MountPoint, fmt.Sprintf("drop/new%d.txt", i), "PRIVATE new")
		for _, p := range []string{"secret.txt", "drop/secret.txt", fmt.Sprintf("drop/new%d.txt", i), fmt.Sprintf("round%d.txt", i)} {
			os.Chmod(filepath.Join(v.MountPoint, p), 0o600)
		}
		r, err := k.Save(context.Background(), v, SaveOptions{})
		if err != nil {
			t.Logf("round %d: %v", i, err) // refusing is fine; losing or leaking is not
		}
		if i < 10 && (r.Folder == nil || len(r.Folder.NotKept) == 0) {
			t.Errorf("round %d: a temporary file taken before its rename went unnoticed: %+v", i, r.Folder)
		}
		a, aerr := os.Lstat(filepath.Join(folder, "secret.txt"))
		b, berr := os.Lstat(filepath.Join(folder, "sub"))
		if aerr != nil || berr != nil || a.Mode() != 0o600 || b.Mode() != os.ModeDir|0o700 {
			t.Fatalf("round %d: secret.txt is %v (%v), sub is %v (%v)", i, a.Mode(), aerr, b.Mode(), berr)
		}
		if fi, err := os.Lstat(filepath.Join(drop, "secret.txt")); err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("round %d: drop/secret.txt is %v (%v): a symlink was renamed into place", i, fi, err)
		}
	}
	os.WriteFile(filepath.Join(drop, "stop"), nil, 0o644)
	if err := attacker.Wait(); err != nil {
		t.Fatalf("attacker: %v", err)
	}
	stolen, _ := filepath.Glob(filepath.Join(drop, "stolen-*"))
	t.Logf("the attacker took %d temporary files; %d more were taken right before the renames", len(stolen), swapped)
	if loot := read(t, filepath.Join(parent, "loot")); strings.Contains(loot, "PRIVATE") {
		t.Errorf("the attacker read private bytes: %q", loot)
	}
	ents, _ := os.ReadDir(target)
	var st unix.Stat_t
	unix.Stat(target, &st)
	if len(ents) != 1 || ents[0].Name() != "canary" || st.Mode&0o777 != 0o700 {
		t.Errorf("the symlink's target was written to: %v, mode %o", ents, st.Mode&0o777)
	}
	// The folder is the disk's tree, whole, beside what the attacker left:
	// its own files, and symlinks it made under names of the write-back's
	// form after the write-back had removed its own.
	left, _ := filepath.Glob(filepath.Join(drop, foldersync.TempPrefix+"*"))
	for _, p := range left {
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil || st.Uid != 65534 {
			t.Errorf("%s is left, and it is not the attacker's (uid %d)", p, st.Uid)
		}
	}
	for _, p := range append(append(stolen, left...), filepath.Join(drop, "stop")) {
		os.Remove(p)
	}
	moved, _ := filepath.Glob(filepath.Join(drop, "moved-*"))
	for _, p := range moved {
		os.Remove(p)
	}
	os.Remove(filepath.Join(parent, "loot"))
	write(t, v.MountPoint, "last.txt", "last")
	if _, err := k.Save(context.Background(), v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	want, got := digest(t, v.MountPoint), digest(t, folder)
	delete(want, ".")
	delete(got, ".")
	delete(want, "drop")
	delete(got, "drop")
	sameTree(t, want, got)
	noTemps(t, folder)
}

func copyExe(t *testing.T, src, dst string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(dst), 0o755)
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
}
