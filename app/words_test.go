package main

import (
	"strings"
	"testing"
	"time"

	"rambar/mirror"
)

// TestSaveWordsSingular: "1 file", never "1 files".
func TestSaveWordsSingular(t *testing.T) {
	for _, c := range []struct {
		files int
		want  string
	}{{1, ": 1 file ("}, {0, ": 0 files ("}, {2, ": 2 files ("}} {
		got := describeSave("Work", mirror.Result{Files: c.files, Snapshot: "20261129T120000Z"})
		if !strings.Contains(got, c.want) {
			t.Errorf("%d files: %q lacks %q", c.files, got, c.want)
		}
	}
}

// TestSaveTookReadsAsWritten: "in 0.84 s", not Go's "841ms".
func TestSaveTookReadsAsWritten(t *testing.T) {
	got := describeSave("Work", mirror.Result{Files: 2, Snapshot: "20261129T120000Z", Took: 841 * time.Millisecond})
	if !strings.HasSuffix(got, ", in 0.84 s") {
		t.Errorf("%q", got)
	}
}
