//go:build linux

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestBenchCLI runs `rambar bench` on a real tmpfs and a mounted (in-memory
// engine) disk for two quick rows and checks the table, --json and --svg.
func TestBenchCLI(t *testing.T) {
	ram := benchMountTmpfs(t, "64m")
	a, mem, out, errOut := benchTestApp(t)
	mem.Create(context.Background(), ramdisk.Plan{Name: "Scratch", Size: ramdisk.GiB, FS: ramdisk.TmpFS})
	svg := filepath.Join(t.TempDir(), "chart.svg")
	args := []string{"bench", "--quick", "--runs", "2", "--rows", "fsync,create-files,delete-files", "--svg", svg, ram, "Scratch"}
	if code := a.Main(args); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"4 KiB write + fsync", "create 2,000 files of 1 KiB", " µs [", " s [", "(tmpfs)", "Scratch (", "Chart written to"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out.String(), "untar") {
		t.Errorf("--rows not honoured:\n%s", out)
	}
	if n := strings.Count(errOut.String(), "(run "); n != 2*2*2 {
		t.Errorf("%d progress lines, want 8:\n%s", n, errOut)
	}
	if b, err := os.ReadFile(svg); err != nil || !strings.HasPrefix(string(b), "<svg ") {
		t.Errorf("svg: %v", err)
	}

	out.Reset()
	if code := a.Main([]string{"bench", "--quick", "--runs", "1", "--rows", "fsync", "--json", ram}); code != exitOK {
		t.Fatalf("--json: exit %d: %s", code, errOut)
	}
	var doc struct {
		Version int `json:"version"`
		Targets []struct {
			FS      string `json:"fs"`
			RAM     bool   `json:"ram"`
			Results []struct {
				Row   string  `json:"row"`
				Unit  string  `json:"unit"`
				Syncs int64   `json:"syncs"`
				Ops   int     `json:"ops"`
				Med   float64 `json:"median"`
			} `json:"results"`
		} `json:"targets"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	r := doc.Targets[0].Results[0]
	if doc.Version != 2 || doc.Targets[0].FS != "tmpfs" || !doc.Targets[0].RAM || r.Row != "fsync" || r.Unit != "µs" || r.Syncs != int64(r.Ops) || r.Med <= 0 {
		t.Errorf("json: %+v", doc)
	}
}

// TestBenchBadInput: clear errors before anything is written.
func TestBenchBadInput(t *testing.T) {
	f := filepath.Join(t.TempDir(), "file")
	os.WriteFile(f, nil, 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "--runs", "0"}, exitUsage, "--runs must be between 1 and 100"},
		{[]string{"bench", "--rows", "nope"}, exitUsage, `unknown row "nope"; rows: seq-write, seq-read, fsync, sqlite-default,`},
		{[]string{"bench", "--rows", "fsync,fullfsync"}, exitUnsupported, "F_FULLFSYNC is macOS only"},
		{[]string{"bench", "/nonexistent/folder"}, exitNotFound, "neither a mounted RAM disk nor a folder"},
		{[]string{"bench", f}, exitUsage, "is not a folder"},
	} {
		a, _, out, errOut := benchTestApp(t)
		if code := a.Main(c.args); code != c.code || !strings.Contains(errOut.String(), c.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}

// TestBenchOneTargetComparesWithHome: one target named is measured against
// the home folder's disk, unless --no-compare; nothing is left on either.
func TestBenchOneTargetComparesWithHome(t *testing.T) {
	ram := benchMountTmpfs(t, "64m")
	home, err := os.MkdirTemp("/var/tmp", "rambar-bench-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	for _, c := range []struct {
		flags []string
		want  []string
	}{
		{nil, []string{ram, "Home disk"}},
		{[]string{"--no-compare"}, []string{ram}},
	} {
		a, _, out, errOut := benchTestApp(t)
		a.Getenv = func(k string) string { return map[string]string{"HOME": home}[k] }
		args := append([]string{"bench", "--quick", "--runs", "1", "--rows", "fsync", "--json", ram}, c.flags...)
		if code := a.Main(args); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var doc struct {
			Targets []struct {
				Name string `json:"name"`
			} `json:"targets"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, x := range doc.Targets {
			got = append(got, x.Name)
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%v: targets %q, want %q", c.flags, got, c.want)
		}
		for _, dir := range []string{ram, home} {
			if left := benchEntries(t, dir); len(left) != 0 {
				t.Errorf("%v: %s holds %v", c.flags, dir, left)
			}
		}
	}
}
