package keeper

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
)

// TestMirrorOverKeptWorkIsRefused: a name mirrored, then kept with saves,
// then mirrored again: the create is refused with the choices, in one line,
// nothing changed; --set-aside-kept mirrors it and keeps the kept state as
// a snapshot no prune removes, through many saves, restorable whole.
func TestMirrorOverKeptWorkIsRefused(t *testing.T) {
	f := newFixture(t)
	folder := filepath.Join(t.TempDir(), "site")
	write(t, folder, "index.html", "from the folder")
	mirrored := Options{Mode: ramdisk.Mirror, MirrorPath: folder}
	if _, err := f.k.Setup("Site", mirrored); err != nil {
		t.Fatal(err)
	}
	v := f.create("Site")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	f.eject(v)
	// Mirrored, then kept: loads the mirror's last state, then new work.
	if notes, err := f.k.SetupNotes("Site", Options{Mode: ramdisk.Keep}); err != nil || len(notes) != 0 {
		t.Fatalf("mirror -> keep: %v %v, want no refusal", notes, err)
	}
	if _, err := f.k.Setup("Site", Options{Mode: ramdisk.Keep}); err != nil {
		t.Fatal(err)
	}
	v = f.create("Site")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		write(t, v.MountPoint, "draft.txt", strings.Repeat("kept work ", i+1))
		if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := digest(t, v.MountPoint)
	snaps, _ := f.k.Snapshots("Site")
	work := snaps[len(snaps)-1].ID
	f.eject(v)
	stateBefore, _ := os.ReadFile(filepath.Join(f.k.Data, "disks", "Site", "state.json"))
	for _, call := range []func() error{
		func() error { _, err := f.k.SetupNotes("Site", mirrored); return err },
		func() error { _, err := f.k.Setup("Site", mirrored); return err },
	} {
		err := call()
		if !errors.Is(err, ErrKeptWork) || !errors.Is(err, ErrRefused) {
			t.Fatalf("mirror again: %v, want ErrKeptWork", err)
		}
		msg := err.Error()
		for _, w := range []string{work, "--keep", "--set-aside-kept", "rambar forget Site", folder} {
			if !strings.Contains(msg, w) {
				t.Errorf("the refusal does not name %q: %s", w, msg)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("the refusal is more than one line: %q", msg)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(f.k.Data, "disks", "Site", "state.json")); string(after) != string(stateBefore) {
		t.Errorf("a refused setup changed the state:\n%s\n%s", stateBefore, after)
	}
	// Set aside: mirrored, and five saves and prunes later the work is there.
	mirrored.SetAsideKept, mirrored.Snapshots = true, 2
	st, err := f.k.Setup("Site", mirrored)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.SetAside) != 1 || st.SetAside[0] != work {
		t.Fatalf("set aside %v, want [%s]", st.SetAside, work)
	}
	v = f.create("Site")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		write(t, v.MountPoint, "index.html", strings.Repeat("edit ", i+1))
		if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	snaps, _ = f.k.Snapshots("Site")
	found := false
	for _, sn := range snaps {
		found = found || sn.ID == work && sn.SetAside
	}
	if !found || len(snaps) != 3 {
		t.Fatalf("after five saves keeping 2: %+v, want the 2 newest and the set-aside %s", snaps, work)
	}
	dir := t.TempDir()
	if _, err := f.k.store(st).Restore(f.ctx, work, dir, st.ID, nil); err != nil {
		t.Fatal(err)
	}
	sameTree(t, want, digest(t, dir))
	// Mirrored again with it set aside already: no refusal.
	if _, err := f.k.SetupNotes("Site", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Errorf("mirror again with the work set aside: %v", err)
	}
}

// TestKeptWorkNeverMirroredIsRefusedToo: a name only ever kept, with saves,
// is not mirrored over without a choice; with none saved it is.
func TestKeptWorkNeverMirroredIsRefusedToo(t *testing.T) {
	f := newFixture(t)
	folder := t.TempDir()
	if _, err := f.k.Setup("Empty", Options{Mode: ramdisk.Keep}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Setup("Empty", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); err != nil {
		t.Errorf("a kept name with nothing saved: %v", err)
	}
	_, v := f.kept("Work")
	write(t, v.MountPoint, "a", "b")
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.k.Setup("Work", Options{Mode: ramdisk.Mirror, MirrorPath: folder}); !errors.Is(err, ErrKeptWork) {
		t.Errorf("kept work, never mirrored: %v, want ErrKeptWork", err)
	}
}

// TestStoredSettingsStand: a name kept with 8 snapshots and autosave every
// 30 s, made again without those flags, keeps both (and the plan says so);
// only a flag changes them; a smaller count says before the save which
// snapshots it deletes.
func TestStoredSettingsStand(t *testing.T) {
	f := newFixture(t)
	st, err := f.k.Setup("Work", Options{Mode: ramdisk.Keep, Snapshots: 8, SaveEvery: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	v := f.create("Work")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		write(t, v.MountPoint, "f", strings.Repeat("x", i+1))
		if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	f.eject(v)
	plain := Options{Mode: ramdisk.Keep}
	notes, err := f.k.SetupNotes("Work", plain)
	if err != nil || len(notes) != 1 || !strings.Contains(notes[0].Text, "8 snapshots, autosave every 30 s") {
		t.Errorf("notes of a plain re-create: %v %v", notes, err)
	}
	if st, err = f.k.Setup("Work", plain); err != nil || st.Snapshots != 8 || st.SaveEvery != 30 {
		t.Fatalf("plain re-create: %+v %v, want 8 snapshots and 30 s kept", st, err)
	}
	if st, _ = f.k.Setup("Work", Options{Mode: ramdisk.Keep, SaveEvery: AutosaveOff}); st.SaveEvery != 0 || st.Snapshots != 8 {
		t.Errorf("autosave off: %+v", st)
	}
	fewer := Options{Mode: ramdisk.Keep, Snapshots: 3}
	notes, err = f.k.SetupNotes("Work", fewer)
	if err != nil || len(notes) != 1 || notes[0].Severity != ramdisk.Warning ||
		!strings.Contains(notes[0].Text, "deletes the 4 oldest snapshots") {
		t.Fatalf("notes of fewer snapshots: %v %v", notes, err)
	}
	snaps, _ := f.k.Snapshots("Work")
	if !strings.Contains(notes[0].Text, snaps[0].ID) {
		t.Errorf("the warning does not name the oldest snapshot %s: %s", snaps[0].ID, notes[0].Text)
	}
	// Nothing is deleted until that save.
	if st, err = f.k.Setup("Work", fewer); err != nil || st.Snapshots != 3 {
		t.Fatal(err)
	}
	if now, _ := f.k.Snapshots("Work"); len(now) != 6 {
		t.Errorf("%d snapshots before the next save, want the 6 still there", len(now))
	}
	v = f.create("Work")
	if _, err := f.k.Load(f.ctx, v, nil); err != nil {
		t.Fatal(err)
	}
	write(t, v.MountPoint, "f", "changed")
	if _, err := f.k.Save(f.ctx, v, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	if now, _ := f.k.Snapshots("Work"); len(now) != 3 || now[0].ID != snaps[4].ID {
		t.Errorf("after the save: %+v, want the 2 newest of before and the new one", now)
	}
	// A preset says every setting.
	o := OptionsFromPreset(ramdisk.Preset{Contents: ramdisk.Keep})
	if o.Snapshots != DefaultSnapshots || o.SaveEvery != AutosaveOff {
		t.Errorf("a preset's options %+v", o)
	}
}
