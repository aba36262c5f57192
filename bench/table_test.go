package bench

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"rambar/ramdisk"
)

func res(id RowID, u Unit, s ...float64) Result {
	r := Result{Row: id, Unit: u, Samples: s}
	summarize(&r)
	return r
}

// TestTableAndHeadline: cells, the speedup column with its noise mark, and
// the headline's three groups, on a report built by hand.
func TestTableAndHeadline(t *testing.T) {
	rep := Report{Version: reportVersion, Runs: 3, Rows: Options{}.Labels()[:3]}
	rep.Rows = append(rep.Rows, RowInfo{rowUntar, "untar", Secs})
	rep.Targets = []TargetReport{
		{Target: Target{Name: "Scratch", RAM: true}, FS: "tmpfs", Results: []Result{
			res(rowSeqWrite, MiBps, 7000, 7357, 7400), res(rowSeqRead, MiBps, 11000, 11936, 12000),
			res(rowFsync, Micros, 16, 17, 18), res(rowUntar, Secs, 0.68, 0.69, 0.80)}},
		{Target: Target{Name: "Home disk"}, FS: "apfs", Results: []Result{
			res(rowSeqWrite, MiBps, 4700, 4722, 4800), {Row: rowSeqRead, Unit: MiBps, Skipped: "no room: needs 1 GiB, 10 MiB free on /x"},
			res(rowFsync, Micros, 44, 45, 46), res(rowUntar, Secs, 0.70, 0.75, 0.79)}},
	}
	table := rep.Table()
	for _, want := range []string{
		"Scratch (tmpfs)", "Home disk (apfs)", "RAM vs disk",
		"7,357 MiB/s [7,000–7,400]", "4,722 MiB/s [4,700–4,800]", "1.6×",
		"no room: needs 1 GiB, 10 MiB free on /x",
		"17 µs [16–18]", "2.6×",
		"0.690 s [0.680–0.800]", "~1.1×",
	} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	want := "Scratch vs Home disk: faster at 1 GiB write, uncached (1.6×), 4 KiB write + fsync (2.6×); no measurable gain at untar"
	if got := rep.Headline(); got != want {
		t.Errorf("headline:\n got %q\nwant %q", got, want)
	}
	if p := rep.Problems(); len(p) != 1 || !strings.HasPrefix(p[0], "Home disk: seq-read: no room") {
		t.Errorf("problems %q", p)
	}
	for _, c := range []struct {
		v    float64
		u    Unit
		want string
	}{{4722.4, MiBps, "4,722 MiB/s"}, {1234567, MiBps, "1,234,567 MiB/s"}, {3.46, Micros, "3.5 µs"}, {12699, Micros, "12,699 µs"}, {0.75, Secs, "0.750 s"}} {
		if got := Format(c.v, c.u); got != c.want {
			t.Errorf("Format(%v, %s) = %q, want %q", c.v, c.u, got, c.want)
		}
	}
	for n, want := range map[int64]string{80 << 20: "80 MiB", 6<<20 + 6: "6.0 MiB", 1536 << 20: "1.5 GiB", 400 << 10: "400 KiB", 12: "12 B"} {
		if got := bytesText(n); got != want {
			t.Errorf("bytesText(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDefaultTargets on real tmpfs: RAMBar's own disks that this user owns,
// then the home disk; never a hand-made RAM disk or another user's.
func TestDefaultTargets(t *testing.T) {
	home := diskDir(t)
	mine, theirs, handMade := mountTmpfs(t, "8m"), mountTmpfs(t, "8m"), mountTmpfs(t, "8m")
	if err := os.Chown(theirs, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	vols := []ramdisk.Volume{
		{Name: "Mine", MountPoint: mine, Managed: true},
		{Name: "Theirs", MountPoint: theirs, Managed: true},
		{Name: "Hand-made", MountPoint: handMade},
	}
	ts := DefaultTargets(vols, home, os.Getuid())
	want := []Target{{Name: "Mine", Dir: mine, RAM: true}, {Name: homeDiskName, Dir: home, RAM: false}}
	if !slices.Equal(ts, want) {
		t.Errorf("DefaultTargets = %+v, want %+v", ts, want)
	}
	for _, dir := range []string{mine, theirs, handMade} {
		if left := leftovers(t, dir); len(left) != 0 {
			t.Errorf("%s holds %v", dir, left)
		}
	}
}

// TestWithHomeDisk: one target is measured against the home disk, unless it
// is on that disk; several are left as they are.
func TestWithHomeDisk(t *testing.T) {
	home := diskDir(t)
	ram := Target{Name: "Scratch", Dir: mountTmpfs(t, "8m"), RAM: true}
	sub := filepath.Join(home, "src")
	os.Mkdir(sub, 0o755)
	onHome := Target{Name: sub, Dir: sub}
	for _, c := range []struct {
		in, want []Target
	}{
		{[]Target{ram}, []Target{ram, HomeDisk(home)}},
		{[]Target{onHome}, []Target{onHome}},
		{[]Target{ram, onHome}, []Target{ram, onHome}},
	} {
		if got := WithHomeDisk(c.in, home); !slices.Equal(got, c.want) {
			t.Errorf("WithHomeDisk(%+v) = %+v, want %+v", c.in, got, c.want)
		}
	}
	if got := WithHomeDisk([]Target{ram}, ""); !slices.Equal(got, []Target{ram}) {
		t.Errorf("no home: %+v", got)
	}
}
