//go:build unix

package main

import (
	"strings"
	"testing"
)

// TestAutosaveSaysWhenItRuns: info and the JSON say whether autosave is
// active now (the menu-bar app runs), create and preset warn when it is not,
// and intervals read as people write them.
func TestAutosaveSaysWhenItRuns(t *testing.T) {
	c := newContentsApp(t)
	if c.a.menuBarRunning() {
		t.Fatal("running before any app started")
	}
	c.run(0, "create", "Work", "64M", "--keep", "--save-every", "10m")
	if !strings.Contains(c.err.String(), "note: Work is saved every 10 min only while the menu-bar app runs, and it is not running now") {
		t.Errorf("create did not warn: %q", c.err.String())
	}
	out := c.run(0, "info", "Work")
	if !strings.Contains(out, "Autosave:         every 10 min while the menu-bar app runs; it is not running now") {
		t.Errorf("info without the app:\n%s", out)
	}
	if d := c.info("Work"); d.Contents.AutosaveActive {
		t.Error("autosave_active without the app")
	}

	release, err := c.a.singleInstance() // this process is now "the menu-bar app"
	if err != nil {
		t.Fatal(err)
	}
	if !c.a.menuBarRunning() {
		t.Fatal("not running while the lock is held")
	}
	if out := c.run(0, "info", "Work"); !strings.Contains(out, "every 10 min while the menu-bar app runs (it is running)") {
		t.Errorf("info with the app:\n%s", out)
	}
	if d := c.info("Work"); !d.Contents.AutosaveActive {
		t.Error("autosave_active false with the app running")
	}
	c.run(0, "create", "Other", "64M", "--keep", "--save-every", "1h")
	c.run(0, "preset", "add", "P", "64M", "--keep", "--save-every", "90m")
	if c.err.Len() != 0 {
		t.Errorf("warned with the app running: %q", c.err.String())
	}
	release()
	if c.a.menuBarRunning() {
		t.Error("still running after release")
	}
	c.run(0, "preset", "edit", "P", "--save-every", "30m")
	if !strings.Contains(c.err.String(), "note: P is saved every 30 min only while") {
		t.Errorf("preset edit did not warn: %q", c.err.String())
	}
	c.run(0, "preset", "edit", "P", "--snapshots", "2")
	c.run(0, "create", "Plain", "64M", "--keep")
	if c.err.Len() != 0 {
		t.Errorf("warned with no interval given: %q", c.err.String())
	}
}
