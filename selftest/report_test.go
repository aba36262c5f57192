package selftest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
)

func TestReport(t *testing.T) {
	var logged []string
	dir := filepath.Join(t.TempDir(), "report")
	r := NewReport("1.2.3", "linux", "amd64", dir, func(c Check) { logged = append(logged, c.Name) })
	if r.OK() {
		t.Error("an empty report is OK")
	}
	r.Add(Passf("engine.small", "64 MiB"), Skipf("menu.edit", "macOS only"))
	if !r.OK() {
		t.Error("no failure, not OK")
	}
	r.Add(Failf("notify.post", "refused: %s", "denied"))
	if r.OK() || r.Passed != 1 || r.Failed != 1 || r.Skipped != 1 || len(logged) != 3 {
		t.Errorf("counts %d/%d/%d, logged %v", r.Passed, r.Failed, r.Skipped, logged)
	}
	if err := r.Write(); err != nil {
		t.Fatal(err)
	}
	var back Report
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &back); err != nil || len(back.Checks) != 3 || back.Checks[2].Status != Fail || back.Version != ReportVersion {
		t.Errorf("report.json read back: %+v, %v", back.Checks, err)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "summary.txt"))
	for _, want := range []string{"RAMBar 1.2.3 self-test on linux/amd64", "  FAIL  notify.post        refused: denied", "1 FAILED: 1 passed, 1 failed, 1 skipped", "report.json"} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

// The memory rule is the plan's: a disk image under 4 GiB holds its size
// when made; from 4 GiB, and tmpfs always, what was written.
func TestHeldRule(t *testing.T) {
	upfront := ramdisk.Plan{Size: 64 * ramdisk.MiB, FS: ramdisk.APFS, Allocation: ramdisk.AllocUpfront}
	lazy := ramdisk.Plan{Size: 4 * ramdisk.GiB, FS: ramdisk.APFS, Allocation: ramdisk.AllocOnWrite}
	tmpfs := ramdisk.Plan{Size: 64 * ramdisk.MiB, FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite}
	u := func(held ramdisk.Size) ramdisk.Usage { return ramdisk.Usage{Held: held, HeldKnown: true} }
	for _, c := range []struct {
		name   string
		p      ramdisk.Plan
		h0, h1 ramdisk.Size
		want   Status
	}{
		{"mac 64 MiB", upfront, 66 * ramdisk.MiB, 70 * ramdisk.MiB, Pass},
		{"mac 64 MiB not committed", upfront, 4 * ramdisk.MiB, 14 * ramdisk.MiB, Fail},
		{"mac 4 GiB lazy", lazy, 13 * ramdisk.MiB, 30 * ramdisk.MiB, Pass}, // the helper's own 9 to 13 MB
		{"mac 4 GiB lazy, too much when made", lazy, 600 * ramdisk.MiB, 620 * ramdisk.MiB, Fail},
		{"mac 4 GiB committed", lazy, 3 * ramdisk.MiB, 4 * ramdisk.GiB, Fail},
		{"tmpfs", tmpfs, 0, 17 * ramdisk.MiB, Pass},
		{"tmpfs short", tmpfs, 0, 8 * ramdisk.MiB, Fail},
		{"tmpfs held before writing", tmpfs, 12 * ramdisk.MiB, 17 * ramdisk.MiB, Fail},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := heldCheck("x", c.p, u(c.h0), u(c.h1), 16*ramdisk.MiB)
			if got.Status != c.want || got.Rule == "" {
				t.Errorf("%+v, want %s", got, c.want)
			}
		})
	}
}

func TestOwner(t *testing.T) {
	for name, want := range map[string]int{
		"RAMBar Selftest 4242 small": 4242,
		"RAMBar Selftest 4242":       4242,
		"RAMBar Selftest 0 small":    0,
		"RAMBar Selftest x small":    0,
		"RAMBar Selftest 042 small":  0,
		"Scratch":                    0,
	} {
		pid, ok := owner(name)
		if ok != (want > 0) || ok && pid != want {
			t.Errorf("owner(%q) = %d, %v; want %d", name, pid, ok, want)
		}
	}
}

// Two runs of one seed write the same tree; a changed byte, mode or link,
// a missing or an added path are each named.
func TestTreeCompare(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	wa, na, err := writeTree(a, 100000, 3)
	if err != nil {
		t.Fatal(err)
	}
	wb, nb, _ := writeTree(b, 100000, 3)
	if na != nb || len(wa) != len(wb) {
		t.Fatalf("%d/%d bytes, %d/%d paths from one seed", na, nb, len(wa), len(wb))
	}
	if d := sameContents(a, wa); d != "" {
		t.Fatalf("read back: %s", d)
	}
	want, err := digestTree(a)
	if err != nil {
		t.Fatal(err)
	}
	if d := sameTree(b, want); d != "" {
		t.Fatalf("same seed differs: %s", d)
	}
	root := filepath.Join(b, testTree)
	os.WriteFile(filepath.Join(root, "src", "pkg1", "file01.txt"), []byte("changed"), 0o644)
	os.Chmod(filepath.Join(root, "empty"), 0o600)
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("elsewhere", filepath.Join(root, "link"))
	os.Remove(filepath.Join(root, "large.bin"))
	os.WriteFile(filepath.Join(root, "extra"), nil, 0o644)
	d := sameTree(b, want)
	for _, w := range []string{"src/pkg1/file01.txt differs", "empty differs", "link differs", "large.bin is missing", "extra appeared"} {
		if !strings.Contains(d, w) {
			t.Errorf("diff lacks %q: %s", w, d)
		}
	}
}
