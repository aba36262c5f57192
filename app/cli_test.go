package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

var update = flag.Bool("update", false, "rewrite golden files")

// cliRun runs the CLI in-process against eng and returns stdout, stderr and
// the exit code.
func cliRun(t *testing.T, eng ramdisk.Engine, home string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &App{
		Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(""),
		NewEngine: func() (ramdisk.Engine, error) { return eng, nil },
		Paths:     ramdisk.Paths{Settings: filepath.Join(home, "settings.plist"), Data: filepath.Join(home, "data")},
		Getenv:    func(string) string { return "" },
		Now:       func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
	}
	code := a.Main(args)
	return out.String(), errb.String(), code
}

// testdataDir is absolute, since golden tests change directory.
var testdataDir, _ = filepath.Abs("testdata")

var volatile = regexp.MustCompile(`"measured_at": "[^"]*"`)

// decimalLabel is a size labelled as if it were decimal ("4.0 GB").
var decimalLabel = regexp.MustCompile(`\d ?[KMGT]B\b`)

// golden compares got with testdata/NAME.golden, with the temp root and
// timestamps replaced by stable words.
func golden(t *testing.T, name, got, root string) {
	t.Helper()
	got = strings.ReplaceAll(got, root, "$ROOT")
	got = volatile.ReplaceAllLiteralString(got, `"measured_at": "$TIME"`)
	if m := decimalLabel.FindString(got); m != "" {
		t.Errorf("%s: %q: sizes are binary and labelled GiB, MiB, KiB", name, m)
	}
	p := filepath.Join(testdataDir, name+".golden")
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, p, got, want)
	}
}

func TestCLIGolden(t *testing.T) {
	// A relative mount root keeps table widths the same on every run.
	root := t.TempDir()
	t.Chdir(root)
	eng := ramdisktest.NewMem("mnt", ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB, SwapUsed: 512 * ramdisk.MiB, SwapTotal: 2 * ramdisk.GiB})
	os.MkdirAll("mnt", 0o700)
	home := filepath.Join(root, "home")
	steps := []struct {
		golden string
		args   []string
		code   int
		write  string // file to write on Scratch before the step
	}{
		{"list-empty", []string{"list"}, exitOK, ""},
		{"create-hfs-3g", []string{"create", "Small", "3G", "--fs", "hfs+"}, exitOK, ""},
		{"create-tmpfs-4g", []string{"create", "--fs=tmpfs", "Scratch", "4G"}, exitOK, ""},
		{"create-duplicate", []string{"create", "scratch", "1G"}, exitExists, ""},
		{"create-rounded", []string{"create", "Tiny", "512k"}, exitOK, ""},
		{"eject-tiny", []string{"eject", "Tiny"}, exitOK, ""},
		{"create-too-large", []string{"create", "Huge", "15G"}, exitRefused, ""},
		{"list-two", []string{"list"}, exitOK, "data.bin"},
		{"list-json", []string{"list", "--json"}, exitOK, ""},
		{"info-scratch", []string{"info", "Scratch"}, exitOK, ""},
		{"info-json", []string{"info", "scratch", "--json"}, exitOK, ""},
		{"info-missing", []string{"info", "Nope"}, exitNotFound, ""},
		{"eject-missing", []string{"eject", "Nope", "Scratch", "Gone"}, exitNotFound, ""},
		{"eject-two", []string{"eject", "Small", "Scratch"}, exitOK, ""},
		{"eject-gone", []string{"eject", "Scratch"}, exitNotFound, ""},
		{"eject-usage", []string{"eject"}, exitUsage, ""},
		{"help", []string{"help"}, exitOK, ""},
		{"unknown", []string{"frobnicate"}, exitUsage, ""},
	}
	for _, s := range steps {
		if s.write != "" {
			os.WriteFile(filepath.Join("mnt", "Scratch", s.write), bytes.Repeat([]byte{1}, 3<<20), 0o600)
		}
		out, errOut, code := cliRun(t, eng, home, s.args...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", s.golden, code, s.code, errOut)
		}
		golden(t, s.golden, "$ rambar "+strings.Join(s.args, " ")+"\n"+out+errOut, root)
	}
}

func TestCLIBusyEject(t *testing.T) {
	root := t.TempDir()
	eng := ramdisktest.NewMem(root, ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	if _, _, code := cliRun(t, eng, root, "create", "Work", "1G", "--fs", "tmpfs"); code != exitOK {
		t.Fatal("create failed")
	}
	vs, _ := eng.List(t.Context())
	release := eng.Hold(vs[0], ramdisk.Holder{PID: 4242, Command: "vim"})
	defer release()
	_, errOut, code := cliRun(t, eng, root, "eject", "Work")
	if code != exitBusy || !strings.Contains(errOut, "vim (pid 4242)") || !strings.Contains(errOut, "--force") {
		t.Errorf("busy eject: exit %d, stderr %q", code, errOut)
	}
	if strings.Count(errOut, "\n") != 1 {
		t.Errorf("error is not one line: %q", errOut)
	}
	if _, _, code := cliRun(t, eng, root, "eject", "--force", "Work"); code != exitOK {
		t.Errorf("forced eject: exit %d", code)
	}
}

// TestCLIRefusesBadInput checks every kind of bad input gives a one-line
// error, the usage exit code, and changes nothing.
func TestCLIRefusesBadInput(t *testing.T) {
	root := t.TempDir()
	eng := ramdisktest.NewMem(root, ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	bad := [][]string{
		{"create", "X", "0"}, {"create", "X", "-1G"}, {"create", "X", "3.5Q"}, {"create", "X", ""},
		{"create", "a/b", "1G"}, {"create", "a:b", "1G"}, {"create", "tab\tname", "1G"}, {"create", "nl\nname", "1G"},
		{"create", strings.Repeat("n", 300), "1G"}, {"create", "", "1G"}, {"create", ".dot", "1G"},
		{"create", "X", "1G", "--fs", "ntfs"}, {"create", "X"}, {"create", "X", "1G", "extra"}, {"create", "X", "1G", "--bogus"},
		{"list", "extra"}, {"info"},
	}
	for _, args := range bad {
		out, errOut, code := cliRun(t, eng, root, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, errOut)
		}
		if out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "rambar: ") {
			t.Errorf("%q: want one error line and no output, got out %q err %q", args, out, errOut)
		}
	}
	if vs, _ := eng.List(t.Context()); len(vs) != 0 {
		t.Errorf("bad input made disks: %v", vs)
	}
}

func TestParseFlagsAnywhere(t *testing.T) {
	c := &command{Name: "x", Args: []arg{{Name: "A", Repeat: true}},
		Flags: []flagSpec{flagBool("force", ""), flagString("fs", "FS", "")}}
	in, help, err := parse(c, []string{"Name", "--force", "4G", "--fs", "apfs", "-1G", "--", "--not-a-flag"})
	if err != nil || help || !*in.Bool("force") || *in.String("fs") != "apfs" || strings.Join(in.Args, ",") != "Name,4G,-1G,--not-a-flag" {
		t.Errorf("pos %q err %v", in.Args, err)
	}
}

// TestCompressFlag: --compress applies to restored contents, and only macOS
// has ditto --hfsCompression; elsewhere it is refused before anything is made.
func TestCompressFlag(t *testing.T) {
	root := t.TempDir()
	eng := ramdisktest.NewMem(root, ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 9 * ramdisk.GiB})
	_, errOut, code := cliRun(t, eng, root, "create", "Plain", "1G", "--compress")
	if code != exitUsage || !strings.Contains(errOut, "needs --keep or --mirror") {
		t.Errorf("--compress without contents: exit %d, %q", code, errOut)
	}
	_, errOut, code = cliRun(t, eng, root, "create", "Kept", "1G", "--keep", "--compress")
	if compressedCopy() == nil {
		if code != exitUnsupported || !strings.Contains(errOut, "ditto --hfsCompression") {
			t.Errorf("--compress off macOS: exit %d, %q", code, errOut)
		}
		if vs, _ := eng.List(t.Context()); len(vs) != 0 {
			t.Errorf("a refused create made %v", vs)
		}
	}
}
