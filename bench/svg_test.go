package bench

import (
	"encoding/xml"
	"flag"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// golden is testdata/file, first rewritten with got under -update.
func golden(t *testing.T, file, got string) string {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	return string(want)
}

// chartReport is a RAM disk against the home disk on every kind of row: a
// big gain, a gain within the noise, a slower row, the macOS-only row
// skipped on both, and a row skipped on one side only.
func chartReport() Report {
	rows := []RowInfo{
		{rowSeqWrite, "1 GiB write, uncached", MiBps},
		{rowFsync, "4 KiB write + fsync", Micros},
		{rowFullFsync, "4 KiB write + F_FULLFSYNC", Micros},
		{rowSQLiteDefault, "SQLite insert, no PRAGMA (sqlite3's defaults)", Micros},
		{rowSQLiteFull, "SQLite insert, PRAGMA synchronous=FULL", Micros},
		{rowUntar, "untar 2,900 files (67 MiB)", Secs},
		{rowDeleteFiles, "delete those 20,000 files", Secs},
	}
	na := "n/a (F_FULLFSYNC is macOS only)"
	return Report{Version: reportVersion, Runs: 3, Rows: rows, Targets: []TargetReport{
		{Target: Target{Name: "Scratch", RAM: true}, FS: "tmpfs", Results: []Result{
			res(rowSeqWrite, MiBps, 7000, 7357, 7400), res(rowFsync, Micros, 2.9, 3.0, 3.2), {Row: rowFullFsync, Unit: Micros, Skipped: na},
			res(rowSQLiteDefault, Micros, 9, 10, 11), res(rowSQLiteFull, Micros, 9, 10, 12),
			res(rowUntar, Secs, 0.68, 0.69, 0.80), res(rowDeleteFiles, Secs, 0.40, 0.41, 0.42)}},
		{Target: Target{Name: "Home disk"}, FS: "ext4", Results: []Result{
			res(rowSeqWrite, MiBps, 1200, 1274, 1300), res(rowFsync, Micros, 1500, 1707, 1900), {Row: rowFullFsync, Unit: Micros, Skipped: na},
			res(rowSQLiteDefault, Micros, 2000, 2100, 2300), {Row: rowSQLiteFull, Unit: Micros, Skipped: "sqlite3 not installed"},
			res(rowUntar, Secs, 0.70, 0.75, 0.79), res(rowDeleteFiles, Secs, 0.20, 0.205, 0.21)}},
	}}
}

// TestChartGolden: the chart as a person reads it, kept in testdata (go
// test -update rewrites it), and checked for what the golden must hold.
func TestChartGolden(t *testing.T) {
	for _, c := range []struct {
		file string
		rep  Report
	}{
		{"chart.svg", chartReport()},
		{"chart-nothing-to-compare.svg", Report{Version: reportVersion, Runs: 1, Rows: chartReport().Rows, Targets: chartReport().Targets[:1]}},
	} {
		got := c.rep.SVG()
		if got != golden(t, c.file, got) {
			t.Errorf("%s differs from the chart drawn now (go test -update rewrites it):\n%s", c.file, got)
		}
		checkInCanvas(t, c.file, got)
	}
	svg := chartReport().SVG()
	for _, want := range []string{
		"5.8× faster", "569× faster", "~1.1× (noise)", "2.0× slower",
		"Scratch 7,357 MiB/s · Home disk 1,274 MiB/s",
		"SQLite insert, no PRAGMA (sqlite3&#39;s defaults)", "SQLite insert, PRAGMA synchronous=FULL",
		"not compared: Home disk: sqlite3 not installed",
	} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if n := strings.Count(svg, "n/a (F_FULLFSYNC is macOS only)"); n != 1 {
		t.Errorf("the n/a row is said %d times, want once", n)
	}
	if n := strings.Count(svg, "<rect ") - strings.Count(svg, `fill="white"/>`); n != 5 {
		t.Errorf("%d coloured rects: want one bar per compared row (5)", n)
	}
	checkOffOneX(t, svg)
}

var (
	svgLine = regexp.MustCompile(`<line x1="([0-9.]+)" x2="[0-9.]+" y1="([0-9]+)" y2="([0-9]+)"`)
	svgText = regexp.MustCompile(`<text x="([0-9.]+)" y="([0-9]+)"[^>]*>([^<]*)</text>`)
)

// checkOffOneX: no word between the axis's ends lies across its 1× line
// (a skipped row's reason, a "not compared" note): each text there starts
// right of the line or ends, at the estimated width, left of it.
func checkOffOneX(t *testing.T, svg string) {
	t.Helper()
	m := svgLine.FindStringSubmatch(svg) // the first line drawn is 1×
	if m == nil {
		t.Fatal("the chart has no 1× line")
	}
	x1, _ := strconv.ParseFloat(m[1], 64)
	top, _ := strconv.Atoi(m[2])
	bottom, _ := strconv.Atoi(m[3])
	for _, tm := range svgText.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(tm[1], 64)
		y, _ := strconv.Atoi(tm[2])
		w := float64(len([]rune(html.UnescapeString(tm[3])))) * 6.8
		if y > top && y < bottom && x < x1 && x+w > x1 {
			t.Errorf("%q (x %v to %v) lies across the 1× line at x %v", tm[3], x, x+w, x1)
		}
	}
}

var numAttr = regexp.MustCompile(`^-?[0-9.]+$`)

// checkInCanvas parses the SVG and checks every shape and text starts inside
// the canvas, and every text, at the estimated width, ends inside it.
func checkInCanvas(t *testing.T, name, svg string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var width, height float64
	var last xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
		attr := func(se xml.StartElement, k string) (float64, bool) {
			for _, a := range se.Attr {
				if a.Name.Local == k && numAttr.MatchString(a.Value) {
					v, _ := strconv.ParseFloat(a.Value, 64)
					return v, true
				}
			}
			return 0, false
		}
		switch x := tok.(type) {
		case xml.StartElement:
			last = x
			if x.Name.Local == "svg" {
				width, _ = attr(x, "width")
				height, _ = attr(x, "height")
			}
			for _, k := range []string{"x", "x1", "x2"} {
				if v, ok := attr(x, k); ok && (v < 0 || v > width) {
					t.Errorf("%s: <%s %s=%v> outside the canvas (width %v)", name, x.Name.Local, k, v, width)
				}
			}
			for _, k := range []string{"y", "y1", "y2"} {
				if v, ok := attr(x, k); ok && (v < 0 || v > height) {
					t.Errorf("%s: <%s %s=%v> outside the canvas (height %v)", name, x.Name.Local, k, v, height)
				}
			}
		case xml.CharData:
			if last.Name.Local != "text" {
				continue
			}
			x0, _ := attr(last, "x")
			n := float64(len([]rune(string(x))))
			anchor := ""
			for _, a := range last.Attr {
				if a.Name.Local == "text-anchor" {
					anchor = a.Value
				}
			}
			if anchor == "" && x0+n*svgCharW > width {
				t.Errorf("%s: text %q (%v px from x=%v) runs past the canvas (width %v)", name, string(x), n*svgCharW, x0, width)
			}
		}
	}
}
