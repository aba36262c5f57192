package main

import (
	"strings"
	"testing"
	"time"

	"rambar/keeper"
)

// TestSaveWordsSingular: "1 file", never "1 files".
func TestSaveWordsSingular(t *testing.T) {
	for _, c := range []struct {
		files int
		want  string
	}{{1, ": 1 file ("}, {0, ": 0 files ("}, {2, ": 2 files ("}} {
		got := describeSave(english(), "Work", savedResult(c.files, "20261129T120000Z", 0))
		if !strings.Contains(got, c.want) {
			t.Errorf("%d files: %q lacks %q", c.files, got, c.want)
		}
	}
}

// TestSaveTookReadsAsWritten: "in 0.84 s", not Go's "841ms".
func TestSaveTookReadsAsWritten(t *testing.T) {
	got := describeSave(english(), "Work", savedResult(2, "20261129T120000Z", 841*time.Millisecond))
	if !strings.HasSuffix(got, ", in 0.84 s") {
		t.Errorf("%q", got)
	}
}

// TestFileSystemWords: an unknown --fs gets the nearest one this machine
// makes, or the list of them; none of the ones it does not make.
func TestFileSystemWords(t *testing.T) {
	p := newPresetApp(t) // the in-memory engine makes tmpfs, apfs, hfs+
	for _, c := range []struct{ args, says string }{
		{"create X 64M --fs tmfps", `unknown file system "tmfps"; did you mean tmpfs?`},
		{"create X 64M --fs ntfs", `unknown file system "ntfs": use one of tmpfs, apfs, hfs+`},
		{"preset add X 64M --fs apsf", `unknown file system "apsf"; did you mean apfs?`},
	} {
		code, _, errOut := p.run(strings.Fields(c.args)...)
		if code != exitUsage || !strings.Contains(errOut, c.says) {
			t.Errorf("%s: exit %d, %q; want %q", c.args, code, errOut, c.says)
		}
	}
}

// savedResult is the result of a save of files files as snapshot id that
// took took.
func savedResult(files int, id string, took time.Duration) keeper.Result {
	var r keeper.Result
	r.Files, r.Snapshot, r.Took = files, id, took
	return r
}
