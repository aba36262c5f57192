package cocoa

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rambar/ramdisk"
)

// planWords stands for the tray's check: sizes up to 8G are fine.
func planWords(f Form) (string, bool) {
	if f.Size == "64G" {
		return "This machine can't hold that disk.", false
	}
	return "Create " + f.Name + " (" + f.Size + " " + string(f.FS) + ")?", true
}

func TestFormWords(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Form
		want string
		ok   bool
	}{
		{"fine", Form{Name: "Scratch", Size: "4G", FS: "apfs"}, "Create Scratch (4G apfs)?", true},
		{"no name", Form{Name: " ", Size: "4G"}, "Type a name for the disk.", false},
		{"no size", Form{Name: "Scratch"}, "Type a size: 512M, 4G, 1.5G, or a share of memory like 25%.", false},
		{"mirror without folder", Form{Name: "S", Size: "1G", Contents: ramdisk.Mirror}, "Choose the folder to mirror (Folder…).", false},
		{"mirror with folder", Form{Name: "S", Size: "1G", FS: "apfs", Contents: ramdisk.Mirror, Folder: "/Users/me/src"}, "Create S (1G apfs)?", true},
		{"refused", Form{Name: "Big", Size: "64G"}, "This machine can't hold that disk.", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, ok := FormWords(c.f, planWords)
			if text != c.want || ok != c.ok {
				t.Errorf("FormWords = %q, %v; want %q, %v", text, ok, c.want, c.ok)
			}
		})
	}
}

func TestNewDiskCreates(t *testing.T) {
	w := &FakeWindows{Fill: func(f Form) Form { f.Name = "  Build  "; f.Size = " 8G"; return f }}
	got, err := Dialogs{W: w}.NewDisk(context.Background(), Form{Name: "RAM Disk", Size: "4G", FS: "apfs"}, FormOptions{}, planWords)
	if err != nil {
		t.Fatal(err)
	}
	if got != (Form{Name: "Build", Size: "8G", FS: "apfs"}) {
		t.Errorf("got %+v; want the typed answers trimmed", got)
	}
	// The plan's words were shown when the window opened, and for what was typed.
	if strings.Join(w.Words, "|") != "Create RAM Disk (4G apfs)?|Create Build (8G apfs)?" {
		t.Errorf("words shown %q", w.Words)
	}
}

// A form refused at Create (the check changed its mind) opens again from
// what was typed, with the refusal shown.
func TestNewDiskRefusedOpensAgain(t *testing.T) {
	n := 0
	w := &FakeWindows{Fill: func(f Form) Form {
		n++
		if n == 1 {
			f.Size = "64G"
		} else {
			f.Size = "2G"
		}
		return f
	}}
	got, err := Dialogs{W: w}.NewDisk(context.Background(), Form{Name: "Big", Size: "4G", FS: "hfs+"}, FormOptions{}, planWords)
	if err != nil {
		t.Fatal(err)
	}
	if got.Size != "2G" || len(w.Forms) != 2 || w.Forms[1].Size != "64G" {
		t.Errorf("got %+v after forms %+v", got, w.Forms)
	}
	if w.Words[2] != "This machine can't hold that disk." {
		t.Errorf("the second window opened with %q, not the refusal", w.Words[2])
	}
}

func TestNewDiskCancel(t *testing.T) {
	_, err := Dialogs{W: &FakeWindows{}}.NewDisk(context.Background(), Form{Name: "x", Size: "1G"}, FormOptions{}, planWords)
	if !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("err = %v, want ErrCancelled", err)
	}
}

func TestPresetDialogs(t *testing.T) {
	ctx := context.Background()
	w := &FakeWindows{Answers: []Answer{
		{Button: 0, Choice: 2},       // Choose
		{Button: 0, Text: "Scratch"}, // Ask
		{Button: 1},                  // Ask: Cancel
		{Button: 0},                  // Confirm
		{Button: 1},                  // Confirm: Cancel
		{Button: 0},                  // Problem
		{Button: 1},                  // Buttons: Leave Mounted
	}, Folder: "/Users/me/src"}
	d := Dialogs{W: w}
	if got, err := d.Choose(ctx, "Preset", "Which?", []string{"a", "b", "c"}, "b"); err != nil || got != "c" {
		t.Errorf("Choose = %q, %v", got, err)
	}
	if w.Alerts[0].Choice != 1 {
		t.Errorf("Choose opened with item %d selected, want the default (1)", w.Alerts[0].Choice)
	}
	if got, err := d.Ask(ctx, "Name", "Name:", "RAM Disk"); err != nil || got != "Scratch" {
		t.Errorf("Ask = %q, %v", got, err)
	}
	if w.Alerts[1].Field == nil || *w.Alerts[1].Field != "RAM Disk" {
		t.Error("Ask did not start from its default")
	}
	if _, err := d.Ask(ctx, "Name", "Name:", ""); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("Ask cancelled = %v", err)
	}
	if ok, err := d.Confirm(ctx, "Remove", "Remove it?", "Remove"); !ok || err != nil {
		t.Errorf("Confirm = %v, %v", ok, err)
	}
	if ok, err := d.Confirm(ctx, "Remove", "Remove it?", "Remove"); ok || err != nil {
		t.Errorf("Confirm declined = %v, %v; want false, nil", ok, err)
	}
	if err := d.Problem(ctx, "Bad", "No."); err != nil {
		t.Errorf("Problem = %v", err)
	}
	if i, err := d.Buttons(ctx, "Quit", "Eject?", "Eject and Quit", "Leave Mounted", "Cancel"); i != 1 || err != nil {
		t.Errorf("Buttons = %d, %v", i, err)
	}
	if err := d.Message(ctx, "Done", "ok"); err != nil {
		t.Errorf("Message dismissed with Esc = %v, want nil", err)
	}
	if dir, err := d.Folder(ctx, "Folder", ""); dir != "/Users/me/src" || err != nil {
		t.Errorf("Folder = %q, %v", dir, err)
	}
	if _, err := d.Choose(ctx, "t", "x", nil, ""); err == nil {
		t.Error("Choose with no items did not fail")
	}
}

func TestButtonIndexAndContents(t *testing.T) {
	for resp, want := range map[int]int{alertFirstButton: 0, alertSecondButton: 1, alertThirdButton: 2, -1001: -1, 0: -1, 1: -1} {
		if got := buttonIndex(resp); got != want {
			t.Errorf("buttonIndex(%d) = %d, want %d", resp, got, want)
		}
	}
	for i, c := range ramdisk.ContentChoices {
		if m, in := contentAt(i); ramdisk.ContentIndex(c.Mode, c.InPlace) != i || m != c.Mode || in != c.InPlace {
			t.Errorf("contents choice %d (%q) does not round-trip", i, c.Mode)
		}
	}
	if m, _ := contentAt(-1); m != ramdisk.Discard {
		t.Error("out of range: not None")
	}
	if m, _ := contentAt(len(ramdisk.ContentChoices)); m != ramdisk.Discard {
		t.Error("an out-of-range popup index is not Discard")
	}
	fss := []ramdisk.FileSystem{"apfs", "hfs+"}
	if fsIndex(fss, "hfs+") != 1 || fsIndex(fss, "zfs") != 0 {
		t.Error("fsIndex")
	}
}

func TestPressed(t *testing.T) {
	buttons := []string{"Create", "Cancel"}
	for _, c := range []struct {
		i, want   int
		cancelled bool
	}{{0, 0, false}, {1, 1, true}, {-1, -1, true}, {5, 5, false}} {
		got, err := pressed(c.i, buttons, "Cancel")
		if got != c.want || errors.Is(err, ramdisk.ErrCancelled) != c.cancelled {
			t.Errorf("pressed(%d) = %d, %v", c.i, got, err)
		}
	}
}

func TestFormOf(t *testing.T) {
	fss := []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus}
	for _, c := range []struct {
		fs, contents int
		opt          FormOptions
		want         Form
	}{
		{1, 2, FormOptions{FileSystems: fss, Contents: true}, Form{Name: "n", Size: "1G", FS: ramdisk.HFSPlus, Contents: ramdisk.Mirror, Folder: "/d"}},
		{-1, 9, FormOptions{FileSystems: fss, Contents: true}, Form{Name: "n", Size: "1G", FS: ramdisk.APFS, Contents: ramdisk.Discard, Folder: "/d"}},
		{1, 1, FormOptions{FileSystems: fss}, Form{Name: "n", Size: "1G", FS: ramdisk.HFSPlus, Folder: "/d"}},
		{0, 0, FormOptions{}, Form{Name: "n", Size: "1G", Folder: "/d"}},
	} {
		if got := formOf("n", "1G", c.fs, c.contents, "/d", c.opt); got != c.want {
			t.Errorf("formOf(fs %d, contents %d, %+v) = %+v, want %+v", c.fs, c.contents, c.opt, got, c.want)
		}
	}
}

// Benchmark This Disk's window: the table in the fixed-pitch accessory, OK
// first (Return), the action second; Esc and OK are not the action.
func TestResult(t *testing.T) {
	ctx := context.Background()
	table := "Test  Scratch  Home disk  RAM disk is\n"
	for _, c := range []struct {
		name, action string
		answers      []Answer
		acted        bool
		buttons      string
	}{
		{"Open Chart", "Open Chart", []Answer{{Button: 1}}, true, "OK|Open Chart"},
		{"OK", "Open Chart", []Answer{{Button: 0}}, false, "OK|Open Chart"},
		{"Esc", "Open Chart", nil, false, "OK|Open Chart"},
		{"no chart", "", []Answer{{Button: 0}}, false, "OK"},
	} {
		w := &FakeWindows{Answers: c.answers}
		acted, err := Dialogs{W: w}.Result(ctx, "Benchmark of Scratch", table, c.action)
		if acted != c.acted || err != nil {
			t.Errorf("%s: %v, %v; want %v", c.name, acted, err, c.acted)
		}
		a := w.Alerts[0]
		if a.Title != "Benchmark of Scratch" || a.Mono != table || a.Text != "" || strings.Join(a.Buttons, "|") != c.buttons {
			t.Errorf("%s: alert %+v", c.name, a)
		}
	}
}
