//go:build unix

package main

import (
	"fmt"
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

// TestAutosaveContinuousWarns: --save-every auto (continuous keep, stored
// as interval 0 with continuous set) warns like an interval does that
// nothing is saved until the menu-bar app runs, from every verb that sets
// it, and not while the app runs.
func TestAutosaveContinuousWarns(t *testing.T) {
	const note = "is saved continuously (seconds after each change) only while the menu-bar app runs, and it is not running now; start it with 'rambar'"
	tests := []struct {
		name  string
		setup [][]string // run first, warnings not checked
		args  []string
		who   string // the name the note is about; "" for no note
	}{
		{name: "create", args: []string{"create", "Work", "64M", "--keep", "--save-every", "auto"}, who: "Work"},
		{name: "create mirror", args: []string{"create", "Site", "64M", "--mirror", "FOLDER", "--save-every", "auto"}, who: "Site"},
		{name: "keep", setup: [][]string{{"create", "Scratch", "64M"}},
			args: []string{"keep", "Scratch", "--save-every", "auto"}, who: "Scratch"},
		{name: "create again keeps auto", setup: [][]string{{"create", "Again", "64M", "--keep", "--save-every", "auto"}, {"eject", "Again"}},
			args: []string{"create", "Again", "64M", "--keep"}, who: "Again"},
		{name: "preset add", args: []string{"preset", "add", "P", "64M", "--keep", "--save-every", "auto"}, who: "P"},
		{name: "preset edit", setup: [][]string{{"preset", "add", "Q", "64M", "--keep", "--save-every", "10m"}},
			args: []string{"preset", "edit", "Q", "--save-every", "auto"}, who: "Q"},
		{name: "create with auto off", args: []string{"create", "Off", "64M", "--keep", "--save-every", "0"}},
	}
	for _, running := range []bool{false, true} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/app running %v", tt.name, running), func(t *testing.T) {
				c := newContentsApp(t)
				folder := t.TempDir()
				if running {
					release, err := c.a.singleInstance()
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(release)
				}
				for _, args := range tt.setup {
					c.run(0, args...)
				}
				args := append([]string(nil), tt.args...)
				for i := range args {
					if args[i] == "FOLDER" {
						args[i] = folder
					}
				}
				c.run(0, args...)
				got := c.err.String()
				switch {
				case tt.who == "" || running:
					if strings.Contains(got, "menu-bar app") {
						t.Errorf("rambar %s warned: %q", strings.Join(args, " "), got)
					}
				case !strings.Contains(got, "rambar: note: "+tt.who+" "+note):
					t.Errorf("rambar %s did not warn that nothing is saved until the app runs: %q", strings.Join(args, " "), got)
				}
			})
		}
	}
}
