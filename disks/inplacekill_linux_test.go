package disks

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestInPlaceKilledAtEachStep kills a RAMBar (SIGKILL) at each recorded
// step of a create in place (and in the middle of its load) and of an
// eject in place. Each time the folder's path shows the disk or the folder
// as of its last write-back, never an empty or half folder; the next
// RAMBar settles the record (a loaded disk ends in place, one that is gone
// leaves nothing), and its eject leaves the folder with every edit, no
// mount and no record.
func TestInPlaceKilledAtEachStep(t *testing.T) {
	f := newInPlace(t, true)
	ctx := context.Background()
	want := files(t, f.folder)
	hidden := f.s.inPlaceKey("Later")
	check := func(at string) {
		t.Helper()
		if got := files(t, f.folder); !sameFiles(got, want) {
			t.Fatalf("%s: the folder's path shows %v (covered %v), want %v", at, got, isTmpfs(f.folder), want)
		}
		t.Logf("%s: the folder's path shows the %s", at, map[bool]string{true: "disk", false: "folder"}[isTmpfs(f.folder)])
	}
	ejectAll := func(at string) {
		t.Helper()
		if err := f.s.settleInPlace(ctx, "Later"); err != nil {
			t.Fatalf("%s: settle: %v", at, err)
		}
		check(at + ", settled")
		if v, err := f.s.Find(ctx, "Later"); err == nil {
			incomplete := f.s.Incomplete(v)
			if !incomplete && f.s.InPlace(ctx, v) != f.folder {
				t.Fatalf("%s: a loaded disk is not in place once settled", at)
			}
			if _, err := f.s.Eject(ctx, v, EjectOptions{NoSave: incomplete}); err != nil {
				t.Fatalf("%s: eject: %v", at, err)
			}
		}
		check(at + ", ejected")
		if isTmpfs(f.folder) || mounted(t, hidden) {
			t.Fatalf("%s: a mount is left", at)
		}
		if _, ok := f.s.readInPlace("Later"); ok {
			t.Fatalf("%s: the record is left", at)
		}
	}
	for _, at := range []string{ipHiding, ipLoading, "load", ipCovering, ipInPlace} {
		if out, code := f.child("inplace-create", at); code != -1 {
			t.Fatalf("create, %s: the child was not killed (exit %d): %s", at, code, out)
		}
		check("create killed at " + at)
		ejectAll("create killed at " + at)
	}
	for i, at := range []string{ipUncovering, ipEjecting, ipUnhiding} {
		if out, code := f.child("inplace-create", ""); code != 0 {
			t.Fatalf("create: exit %d: %s", code, out)
		}
		edit := fmt.Sprintf("round %d", i)
		write(t, filepath.Join(f.folder, "index.html"), edit)
		want["index.html"] = edit
		if out, code := f.child("inplace-eject", at); code != -1 {
			t.Fatalf("eject, %s: the child was not killed (exit %d): %s", at, code, out)
		}
		check("eject killed at " + at)
		ejectAll("eject killed at " + at)
	}
	// After all that, the folder mirrors in place again.
	if out, code := f.child("inplace-create", ""); code != 0 {
		t.Fatalf("create: exit %d: %s", code, out)
	}
	v, err := f.s.Find(ctx, "Later")
	if err != nil || f.s.InPlace(ctx, v) != f.folder {
		t.Fatalf("not in place again: %v", err)
	}
	if _, err := f.s.Eject(ctx, v, EjectOptions{}); err != nil {
		t.Fatal(err)
	}
}
