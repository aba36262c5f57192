//go:build linux

package keeper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/snapshot"
	"rambar/snapstore"

	"golang.org/x/sys/unix"

	"rambar/ramdisk"
)

// TestForcedRestoreKeepsUnsavedWork: on real tmpfs, a kept disk saved
// twice and then changed. Without --force the restore is refused, naming
// the unsaved paths (the first few and a count), and changes nothing;
// forced, it first saves what the disk holds as a safety snapshot, listed
// with its label, and restoring that snapshot brings the disk back whole.
// A disk with nothing unsaved is refused as all saved, and its forced
// restore takes no safety snapshot; nor does one holding a restore cut
// short (part of a saved state is never saved).
func TestForcedRestoreKeepsUnsavedWork(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, root string)
		words  []string // in the refusal
		count  int      // paths named in the label; -1: no safety snapshot
		// partial: the disk holds a restore cut short, never saved
		partial bool
	}{
		{"files added", func(t *testing.T, root string) {
			write(t, root, "notes.txt", "unsaved notes\n")
			write(t, root, "a/b.db", "unsaved db")
			write(t, root, "new/deep/c.txt", "c")
			write(t, root, "zz/d.txt", "d")
		}, []string{"holds 8 paths not saved since", "(a, a/b.db, new, …)", "restore --force saves them as a snapshot first"}, 8, false},
		{"a file changed", func(t *testing.T, root string) {
			write(t, root, "keep/one.txt", "changed since the save")
		}, []string{"holds 1 path not saved since", "(keep/one.txt)"}, 1, false},
		{"a file removed", func(t *testing.T, root string) {
			if err := os.Remove(filepath.Join(root, "keep/two.txt")); err != nil {
				t.Fatal(err)
			}
		}, []string{"has 1 path removed, not saved since", "(keep/two.txt)"}, 0, false},
		{"nothing unsaved", func(*testing.T, string) {}, []string{"already holds files, all of them saved"}, -1, false},
		{"a restore cut short", func(t *testing.T, root string) {
			write(t, root, "half/restored.txt", "part of a saved state")
		}, []string{"holds part of a restore that did not finish: restore --force replaces it"}, -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, _, v := keptDisk(t, t.TempDir(), "Work", mountTmpfs(t, "16m"))
			write(t, v.MountPoint, "keep/one.txt", "one")
			write(t, v.MountPoint, "keep/two.txt", "two")
			first, err := k.Save(t.Context(), v, SaveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			atFirst := digest(t, v.MountPoint)
			write(t, v.MountPoint, "later.txt", "saved later")
			if _, err := k.Save(t.Context(), v, SaveOptions{}); err != nil {
				t.Fatal(err)
			}
			tc.change(t, v.MountPoint)
			want := digest(t, v.MountPoint)
			before, _ := k.Snapshots("Work")

			_, err = k.Restore(t.Context(), v, RestoreOptions{Snapshot: first.Snapshot, Incomplete: tc.partial})
			if !errors.Is(err, ErrRefused) || !errors.Is(err, snapshot.ErrNothingWritten) {
				t.Fatalf("restore without --force = %v, want ErrRefused, nothing written", err)
			}
			for _, w := range tc.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("refusal %q does not say %q", err, w)
				}
			}
			sameTree(t, want, digest(t, v.MountPoint))
			if after, _ := k.Snapshots("Work"); len(after) != len(before) {
				t.Errorf("the refusal made %d snapshots, want none", len(after)-len(before))
			}

			res, err := k.Restore(t.Context(), v, RestoreOptions{Snapshot: first.Snapshot, Force: true, Incomplete: tc.partial})
			if err != nil {
				t.Fatal(err)
			}
			sameTree(t, atFirst, digest(t, v.MountPoint))
			if tc.count < 0 {
				if after, _ := k.Snapshots("Work"); res.Safety != nil || len(after) != len(before) {
					t.Errorf("a disk with nothing to keep got safety snapshot %+v (%d snapshots, %d before)", res.Safety, len(after), len(before))
				}
				return
			}
			s := res.Safety
			if s == nil || s.Kind != snapstore.SafetyRestore || s.Of != first.Snapshot || s.Count != tc.count {
				t.Fatalf("safety = %+v, want a before-restore one of %s naming %d paths", s, first.Snapshot, tc.count)
			}
			if d := s.Describe("Work", "").Text; !strings.Contains(d, "as snapshot "+s.Snapshot+" (before restore") ||
				!strings.Contains(d, "'rambar restore Work --snapshot "+s.Snapshot+" --force' brings it back") {
				t.Errorf("the restore says %q", d)
			}
			if l := listedAs(t, k, "Work", s.Snapshot); l == nil || l.Safety == nil || l.Safety.Kind != snapstore.SafetyRestore {
				t.Fatalf("snapshots lists %s as %+v, want it labelled", s.Snapshot, l)
			}
			// The safety snapshot brings back what the disk held, whole.
			if _, err := k.Restore(t.Context(), v, RestoreOptions{Snapshot: s.Snapshot, Force: true}); err != nil {
				t.Fatal(err)
			}
			sameTree(t, want, digest(t, v.MountPoint))
			if l := listedAs(t, k, "Work", s.Snapshot); l == nil || l.Safety != nil {
				t.Errorf("after its restore %s is listed as %+v, want it an ordinary snapshot", s.Snapshot, l)
			}
		})
	}
}

// TestSafetySnapshotIsPrunedLast: a disk keeping 3 snapshots, restored
// with --force over unsaved work, then saved 8 times: the saves prune
// each other, never the safety snapshot; and of the safety snapshots only
// newer forced restores (more than 3 of them) remove one, at the save
// after them.
func TestSafetySnapshotIsPrunedLast(t *testing.T) {
	data, mnt := t.TempDir(), mountTmpfs(t, "16m")
	k := NewKeeper(data)
	k.IsMounted = func(string) bool { return true }
	if _, err := k.Setup("Work", Options{Mode: ramdisk.Keep, Snapshots: 3}); err != nil {
		t.Fatal(err)
	}
	v := ramdisk.Volume{Name: "Work", MountPoint: mnt}
	if _, err := k.Load(t.Context(), v, nil); err != nil {
		t.Fatal(err)
	}
	save := func() string {
		t.Helper()
		r, err := k.Save(t.Context(), v, SaveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return r.Snapshot
	}
	write(t, v.MountPoint, "f", "0")
	first := save()
	last := first
	var safety []string
	forced := func(n int) {
		t.Helper()
		write(t, v.MountPoint, "unsaved.txt", strings.Repeat("u", n+1))
		res, err := k.Restore(t.Context(), v, RestoreOptions{Snapshot: last, Force: true})
		if err != nil || res.Safety == nil {
			t.Fatalf("forced restore %d = %+v, %v", n, res.Safety, err)
		}
		safety = append(safety, res.Safety.Snapshot)
	}
	forced(0)
	for i := range 8 {
		write(t, v.MountPoint, "f", strings.Repeat("x", i+1))
		last = save()
	}
	ordinary, kept := 0, map[string]bool{}
	snaps, _ := k.Snapshots("Work")
	for _, sn := range snaps {
		kept[sn.ID] = true
		if sn.Safety == nil {
			ordinary++
		}
	}
	if !kept[safety[0]] || ordinary != 3 || kept[first] {
		t.Fatalf("after 8 saves: %d ordinary snapshots, safety %s kept %v, first %s kept %v; want 3, true, false",
			ordinary, safety[0], kept[safety[0]], first, kept[first])
	}
	for i := 1; i <= 3; i++ {
		forced(i)
	}
	write(t, v.MountPoint, "f", "the next save prunes")
	save()
	snaps, _ = k.Snapshots("Work")
	var labelled []string
	for _, sn := range snaps {
		if sn.Safety != nil {
			labelled = append(labelled, sn.ID)
		}
	}
	if len(labelled) != 3 || labelled[0] != safety[1] {
		t.Errorf("after 4 forced restores the safety snapshots are %v, want the newest 3 of %v", labelled, safety)
	}
	// What the safety snapshot kept still restores whole.
	if _, err := k.Restore(t.Context(), v, RestoreOptions{Snapshot: safety[3], Force: true}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(v.MountPoint, "unsaved.txt")); got != "uuuu" {
		t.Errorf("restored unsaved.txt = %q", got)
	}
}

// TestMirrorLoadNamesTheSnapshotTheFolderLacks: a Mirror disk's last
// save that never reached its folder (saved to the store only) holds a
// file the folder lacks. The next load of the folder says so and names
// that snapshot, and so does the load after; saves never prune it;
// restoring it brings the file back, ends its mark, and the next save
// writes the file into the folder. A disk written back whole leaves nothing to say.
func TestMirrorLoadNamesTheSnapshotTheFolderLacks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		writeBack bool
	}{
		{"save never written back", false},
		{"save written back", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newMirror(t, map[string]string{"index.html": "<p>hi</p>", "css/site.css": "body{}"})
			write(t, f.v.MountPoint, "draft.md", "written on the disk only")
			var lost string
			if tc.writeBack {
				lost = f.save().Snapshot
			} else {
				st, err := f.k.State("Site")
				if err != nil {
					t.Fatal(err)
				}
				r, err := f.k.store(st).Save(f.ctx, f.v.MountPoint, st.ID, st.Snapshots, nil, nil) // the store's save: no write-back
				if err != nil {
					t.Fatal(err)
				}
				lost = r.Snapshot
			}
			if err := unix.Unmount(f.v.MountPoint, unix.MNT_DETACH); err != nil { // the disk is lost
				t.Fatal(err)
			}
			f.v = ramdisk.Volume{Name: "Site", MountPoint: tmpfsAt(t, "", "64m")}
			res, err := f.k.Load(f.ctx, f.v, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.writeBack {
				if res.Safety != nil || read(t, f.disk("draft.md")) != "written on the disk only" {
					t.Errorf("a folder written back whole: safety %+v", res.Safety)
				}
				return
			}
			s := res.Safety
			if s == nil || s.Snapshot != lost || s.Kind != snapstore.SafetyUnwritten || s.Count != 1 || s.Paths[0] != "draft.md" {
				t.Fatalf("load says %+v, want snapshot %s lacking draft.md", s, lost)
			}
			if d := s.Describe("Site", f.folder).Text; !strings.Contains(d, "snapshot "+lost+" holds 1 path that "+f.folder+" lacks (draft.md)") {
				t.Errorf("the load says %q", d)
			}
			// Made again (its last save written back), it says so again.
			if err := unix.Unmount(f.v.MountPoint, unix.MNT_DETACH); err != nil {
				t.Fatal(err)
			}
			f.v = ramdisk.Volume{Name: "Site", MountPoint: tmpfsAt(t, "", "64m")}
			if res, err = f.k.Load(f.ctx, f.v, nil); err != nil || res.Safety == nil || res.Safety.Snapshot != lost {
				t.Fatalf("the next load says %+v, %v; want snapshot %s named again", res.Safety, err, lost)
			}
			for i := range 8 {
				write(t, f.v.MountPoint, "index.html", strings.Repeat("x", i+1))
				f.save()
			}
			if l := listedAs(t, f.k, "Site", lost); l == nil || l.Safety == nil {
				t.Fatalf("after 8 saves the only copy of draft.md is %+v, want it kept and marked", l)
			}
			if _, err := f.k.Restore(f.ctx, f.v, RestoreOptions{Snapshot: lost, Force: true}); err != nil {
				t.Fatal(err)
			}
			if got := read(t, f.disk("draft.md")); got != "written on the disk only" {
				t.Errorf("restored draft.md = %q", got)
			}
			if l := listedAs(t, f.k, "Site", lost); l == nil || l.Safety != nil {
				t.Errorf("after its restore %s is %+v, want it unmarked", lost, l)
			}
			f.save()
			if got := read(t, f.inFolder("draft.md")); got != "written on the disk only" {
				t.Errorf("draft.md in the folder after the save = %q", got)
			}
		})
	}
}

// listedAs is snapshot id of disk name as k lists it, nil when not listed.
func listedAs(t *testing.T, k *Keeper, name, id string) *snapstore.Snapshot {
	t.Helper()
	snaps, err := k.Snapshots(name)
	if err != nil {
		t.Fatal(err)
	}
	for i := range snaps {
		if snaps[i].ID == id {
			return &snaps[i]
		}
	}
	return nil
}

// TestForcedRestorePrunesNothing: the safety save of a forced restore
// removes no snapshot, whether the store keeps its newest saves or, saved
// continuously, save points spaced in time (which would keep only some
// of a minute's saves).
func TestForcedRestorePrunesNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every time.Duration
	}{
		{"newest kept", 0},
		{"spaced in time", AutosaveAuto},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := NewKeeper(t.TempDir())
			k.IsMounted = func(string) bool { return true }
			if _, err := k.Setup("Work", Options{Mode: ramdisk.Keep, Snapshots: 3, SaveEvery: tc.every}); err != nil {
				t.Fatal(err)
			}
			v := ramdisk.Volume{Name: "Work", MountPoint: mountTmpfs(t, "16m")}
			if _, err := k.Load(t.Context(), v, nil); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				write(t, v.MountPoint, "f", strings.Repeat("x", i+1))
				if _, err := k.Save(t.Context(), v, SaveOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := k.Snapshots("Work")
			write(t, v.MountPoint, "unsaved.txt", "u")
			res, err := k.Restore(t.Context(), v, RestoreOptions{Snapshot: before[0].ID, Force: true})
			if err != nil || res.Safety == nil {
				t.Fatalf("forced restore = %+v, %v", res.Safety, err)
			}
			after, _ := k.Snapshots("Work")
			if len(after) != len(before)+1 {
				t.Errorf("%d snapshots before the forced restore, %d after; want one more", len(before), len(after))
			}
			for _, sn := range before {
				if listedAs(t, k, "Work", sn.ID) == nil {
					t.Errorf("the forced restore pruned %s", sn.ID)
				}
			}
		})
	}
}
