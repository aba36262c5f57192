//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rambar/tree"

	"golang.org/x/sys/unix"

	"rambar/changefeed"
	"rambar/internal/run"
	"rambar/keeper"
	"rambar/linux"
	"rambar/ramdisk"
)

// TestCLIKeepOnRealTmpfs: the built binary keeps a real tmpfs disk's
// contents across eject and create, with a save in between, and refuses to
// save the disk once it is emptied.
func TestCLIKeepOnRealTmpfs(t *testing.T) {
	c := newCLI(t)
	out, errOut, code := c.run("create", "Kept", "32M", "--keep")
	if code != 0 {
		t.Fatalf("create --keep: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Kept") })
	mp := filepath.Join(c.root, "Kept")
	put(t, mp, "src/main.go", "package main\n")
	put(t, mp, "big.bin", strings.Repeat("z", 1<<20))
	if err := unix.Setxattr(filepath.Join(mp, "src/main.go"), "user.tag", []byte("red"), 0); err != nil {
		t.Fatalf("tmpfs user xattr: %v", err)
	}
	want, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code = c.run("info", "Kept", "--json")
	var d diskJSON
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Contents == nil || d.Contents.Unsaved == nil || !*d.Contents.Unsaved {
		t.Fatalf("info before save: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code = c.run("eject", "Kept"); code != 0 || !strings.Contains(out, "Saved Kept") {
		t.Fatalf("eject: exit %d\n%s%s", code, out, errOut)
	}
	if len(c.mounted()) != 0 {
		t.Fatalf("still mounted: %v", c.mounted())
	}
	if out, errOut, code = c.run("create", "Kept", "32M", "--keep"); code != 0 || !strings.Contains(out, "Restored 2 files") {
		t.Fatalf("create again: exit %d\n%s%s", code, out, errOut)
	}
	got, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := want.Diff(got, 5); len(diff) > 0 {
		t.Errorf("restored tree differs at %v", diff)
	}
	os.RemoveAll(filepath.Join(mp, "src"))
	os.Remove(filepath.Join(mp, "big.bin"))
	if _, errOut, code = c.run("save", "Kept"); code != exitRefused || !strings.Contains(errOut, "is empty") {
		t.Errorf("save of an emptied disk: exit %d, %s", code, errOut)
	}
}

// TestReclaimZramEndToEnd fills a real zram disk mounted without discard,
// deletes most of it so memory stays pinned, reclaims it, and checks that
// the memory came back (mm_stat mem_used_total of the new device) and the
// contents are the same.
func TestReclaimZramEndToEnd(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test makes a real zram disk: run it as root (CI does)")
	}
	root := filepath.Join(t.TempDir(), "mnt")
	eng := linux.New(run.System(), linux.WithMountRoot(root), linux.WithZramDiscard(false))
	if !eng.Caps().Supports(ramdisk.ZRAM) {
		t.Fatal("no zram here (zram-control and mkfs.ext4 are needed; CI has them)")
	}
	var out, errb bytes.Buffer
	home := t.TempDir()
	a := &App{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return eng, nil },
		Paths:     ramdisk.Paths{Settings: filepath.Join(home, "settings.plist"), Data: filepath.Join(home, "data")},
		Getenv:    func(string) string { return "" }, Now: time.Now}
	ctx := context.Background()
	t.Cleanup(func() {
		vs, _ := eng.List(ctx)
		for _, v := range vs {
			if !strings.HasPrefix(v.MountPoint, root+"/") {
				continue // not this test's: a user's disk at a folder of their choice
			}
			if err := eng.Eject(ctx, v, true); err != nil {
				t.Errorf("cleanup eject %s: %v", v.Name, err)
			}
		}
	})
	cli := func(code int, args ...string) string {
		t.Helper()
		out.Reset()
		errb.Reset()
		if got := a.Main(args); got != code {
			t.Fatalf("rambar %s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, out.String(), errb.String())
		}
		return out.String()
	}
	cli(0, "create", "Pinned", "1G", "--fs", "zram")
	mp := filepath.Join(root, "Pinned")
	// 400 MiB of incompressible data, and a small tree that stays.
	r := rand.New(rand.NewSource(7))
	block := make([]byte, 8<<20)
	r.Read(block)
	for i := 0; i < 5; i++ {
		f, err := os.Create(filepath.Join(mp, "big"+string(rune('0'+i))))
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 10; j++ {
			block[j] ^= byte(i + 1) // every 8 MiB differs
			if _, err := f.Write(block); err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
	}
	for i := 0; i < 200; i++ {
		put(t, mp, filepath.Join("keep", string(rune('a'+i%26)), "f"+string(rune('0'+i%10))+string(rune('a'+i/10))), strings.Repeat("k", i*37))
	}
	syncDisk(t, mp)
	for i := 0; i < 4; i++ {
		os.Remove(filepath.Join(mp, "big"+string(rune('0'+i))))
	}
	syncDisk(t, mp)
	var before diskJSON
	json.Unmarshal([]byte(cli(0, "info", "Pinned", "--json")), &before)
	if before.Held == nil || before.Pinned < ramdisk.ReclaimThreshold || !before.Reclaim {
		t.Fatalf("after deleting 320 MiB without discard: held %v pinned %v worthwhile %v", before.Held, before.Pinned, before.Reclaim)
	}
	want, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	var res keeper.ReclaimResult
	if err := json.Unmarshal([]byte(cli(0, "reclaim", "Pinned", "--json")), &res); err != nil {
		t.Fatal(err)
	}
	got, err := tree.DigestOf(mp, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := want.Diff(got, 5); len(diff) > 0 || got.Files() != want.Files() {
		t.Errorf("contents after reclaim differ at %v (%d files, want %d)", diff, got.Files(), want.Files())
	}
	mm := mmUsed(t, res.Volume.Device)
	t.Logf("held %v pinned %v before; after: held %v, mm_stat mem_used_total %d; %d files", res.Before.Held, before.Pinned, res.After.Held, mm, res.Files)
	if res.After.Held > res.Before.Held-before.Pinned+32*ramdisk.MiB || mm > int64(res.Before.Held-before.Pinned+32*ramdisk.MiB) {
		t.Errorf("memory did not come back: before %v (pinned %v), after %v, mm_stat %d", res.Before.Held, before.Pinned, res.After.Held, mm)
	}
	if ents, _ := os.ReadDir(filepath.Join(a.Paths.Data, "reclaim")); len(ents) != 0 {
		t.Errorf("staging left behind: %v", ents)
	}
}

func syncDisk(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
}

// mmUsed reads mem_used_total (the third field of mm_stat) of a zram device.
func mmUsed(t *testing.T, dev string) int64 {
	t.Helper()
	b, err := os.ReadFile("/sys/block/" + filepath.Base(dev) + "/mm_stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		t.Fatalf("mm_stat %q", b)
	}
	var n int64
	for _, c := range f[2] {
		n = n*10 + int64(c-'0')
	}
	return n
}

// TestInfoTellsTheFeedsCountWithNoScan: while the menu-bar app follows a
// kept disk by its change feed, `rambar info` (another process) says how
// many paths changed since the last save from what the app published, and
// when the last save was ("… ago"); once the app that wrote it is gone,
// info scans the disk as before.
func TestInfoTellsTheFeedsCountWithNoScan(t *testing.T) {
	c := newCLI(t)
	if out, errOut, code := c.run("create", "Fed", "32M", "--keep", "--save-every", "auto"); code != 0 {
		t.Fatalf("create: exit %d\n%s%s", code, out, errOut)
	}
	t.Cleanup(func() { c.run("eject", "--force", "--no-save", "Fed") })
	v := ramdisk.Volume{Name: "Fed", MountPoint: filepath.Join(c.root, "Fed")}
	k := keeper.NewKeeper(filepath.Join(c.home, "data"))
	f, err := k.Follow(v)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := k.Save(ctx, v, keeper.SaveOptions{Follow: f, Force: true}); err != nil {
		t.Fatal(err)
	}
	// This process plays the menu-bar app: the single-instance lock names it.
	if err := os.WriteFile(filepath.Join(c.home, "rambar.lock"), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		t.Fatal(err)
	}
	put(t, v.MountPoint, "a.txt", "a")
	put(t, v.MountPoint, "b/c.txt", "c")
	go f.Next(ctx) // publishes the count once the disk is quiet
	var d diskJSON
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, errOut, code := c.run("info", "Fed", "--json")
		if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.Contents == nil {
			t.Fatalf("info: exit %d\n%s%s", code, out, errOut)
		}
		// a.txt and the new folder b (what is in a folder new since the
		// last save is read by the next: inotify counts the folder, not
		// watched yet; fanotify, which sees every folder, b/c.txt too)
		want := 2
		if d.Contents.Feed != nil && d.Contents.Feed.Kind == changefeed.KindFanotify {
			want = 3
		}
		if n := d.Contents.UnsavedPaths; n != nil && *n == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("info never tells the feed's count: %s", out)
		}
	}
	if !*d.Contents.Unsaved || !d.Contents.SaveContinuously || !d.Contents.AutosaveActive {
		t.Errorf("info --json: %+v", d.Contents)
	}
	// As root, on a tmpfs: one fanotify mark, no inotify watch.
	if fd := d.Contents.Feed; fd == nil || fd.Kind != changefeed.KindFanotify || fd.Watches != 0 || fd.Lost != "" {
		t.Errorf("info --json's feed: %+v", fd)
	}
	out, _, _ := c.run("info", "Fed")
	for _, want := range []string{"paths changed (the menu-bar app's change feed counts them)", "s ago", "Autosave", "continuously",
		"Change feed:", "fanotify: one mark on the disk's file system, no inotify watch"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
	// doctor says it too, for each disk the app follows.
	out, _, _ = c.run("doctor", "--json")
	var doc struct {
		Feeds feedsJSON `json:"change_feeds"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || !doc.Feeds.Fanotify || doc.Feeds.WatchBudget <= 0 ||
		len(doc.Feeds.Disks) != 1 || doc.Feeds.Disks[0].Disk != "Fed" || doc.Feeds.Disks[0].Kind != changefeed.KindFanotify {
		t.Errorf("doctor --json's change_feeds (%v): %+v", err, doc.Feeds)
	}
	if out, _, _ = c.run("doctor"); !strings.Contains(out, "Fed: fanotify") {
		t.Errorf("doctor does not say which feed follows Fed:\n%s", out)
	}
	// Another process's pid in the lock: the status is not trusted, a scan tells.
	os.WriteFile(filepath.Join(c.home, "rambar.lock"), []byte("1"), 0o600)
	out, _, _ = c.run("info", "Fed", "--json")
	d = diskJSON{}
	if json.Unmarshal([]byte(out), &d) != nil || d.Contents == nil || d.Contents.UnsavedPaths != nil || d.Contents.Unsaved == nil || !*d.Contents.Unsaved {
		t.Errorf("info with another app running: %s", out)
	}
}
