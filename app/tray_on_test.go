package main

import (
	"bytes"
	"fmt"
	"testing"

	"rambar/ramdisk"
)

// TestReasonFirst: a menu bar that fails after it started says why at once
// (the save at the session's end comes after), and the exit says it no
// second time but keeps its code; one that never started says it as any
// error, once.
func TestReasonFirst(t *testing.T) {
	var errb bytes.Buffer
	a := &App{Stderr: &errb}
	cause := fmt.Errorf("%w: the panel went away", ramdisk.ErrUnsupported)
	err := a.reasonFirst(cause, true)
	if errb.String() != "rambar: not supported here: the panel went away\n" {
		t.Errorf("said %q before the save", errb.String())
	}
	if code := a.exit(err); code != exitUnsupported || errb.Len() != len("rambar: not supported here: the panel went away\n") {
		t.Errorf("exit %d, stderr %q: want %d and the reason once", code, errb.String(), exitUnsupported)
	}
	errb.Reset()
	if code := a.exit(a.reasonFirst(cause, false)); code != exitUnsupported || errb.String() != "rambar: not supported here: the panel went away\n" {
		t.Errorf("never started: exit %d, stderr %q", code, errb.String())
	}
	if a.reasonFirst(nil, true) != nil {
		t.Error("no error became one")
	}
}
