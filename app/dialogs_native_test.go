package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"rambar/darwin/cocoa"
	"rambar/ramdisk"
	"rambar/tray"
)

var macFacts = ramdisk.Facts{
	Caps: ramdisk.Caps{OS: "darwin", FileSystems: []ramdisk.FileSystem{ramdisk.APFS, ramdisk.HFSPlus}, MountRoot: "/Volumes",
		HeldIsCostly: true, LazyThreshold: 4 * ramdisk.GiB},
	Memory: ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: 8 * ramdisk.GiB},
}

func macCheck(f tray.NewDiskForm) (ramdisk.Plan, error) {
	return ramdisk.PlanInput(ramdisk.Input{Name: f.Name, Size: f.Size, FS: f.FS}, macFacts)
}

// The native New RAM Disk window shows the tray's own plan words while the
// user types, and hands back the plan check made of the answers.
func TestNativeNewDisk(t *testing.T) {
	tries := 0
	w := &cocoa.FakeWindows{Fill: func(f cocoa.Form) cocoa.Form {
		tries++
		f.Name = "Scratch"
		f.Size = map[int]string{1: "64G", 2: "3G"}[tries]
		f.Contents, f.Folder = ramdisk.Mirror, "/Users/me/src"
		return f
	}}
	d := nativeDialogs{cocoa.Dialogs{W: w}}
	answers, plan, err := d.NewDisk(context.Background(), tray.NewDiskForm{Name: "RAM Disk", Size: "4G", FS: ramdisk.APFS}, macFacts.Caps.FileSystems, macCheck)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Name != "Scratch" || plan.Size != 3*ramdisk.GiB || plan.FS != ramdisk.APFS {
		t.Errorf("plan %+v", plan)
	}
	// The window's contents row is on and its answer reaches the create.
	if len(w.Options) == 0 || !w.Options[0].Contents {
		t.Errorf("the window's contents row is off: %+v", w.Options)
	}
	if answers.Contents != ramdisk.Mirror || answers.Folder != "/Users/me/src" || answers.Name != "Scratch" {
		t.Errorf("answers %+v", answers)
	}
	if len(w.Words) != 4 {
		t.Fatalf("words shown %q", w.Words)
	}
	for i, want := range []string{"Create RAM Disk: 4 GiB APFS", "This machine can't hold that disk", "This machine can't hold that disk", "Create Scratch: 3 GiB APFS, commits 3 GiB now?"} {
		if !strings.Contains(w.Words[i], want) {
			t.Errorf("words[%d] = %q, want it to say %q", i, w.Words[i], want)
		}
	}
	if _, _, err := (nativeDialogs{cocoa.Dialogs{W: &cocoa.FakeWindows{}}}).NewDisk(context.Background(), tray.NewDiskForm{Name: "x", Size: "1G"}, nil, macCheck); !errors.Is(err, ramdisk.ErrCancelled) {
		t.Errorf("cancelled NewDisk = %v", err)
	}
}

func TestNativeQuit(t *testing.T) {
	for _, c := range []struct {
		answers []cocoa.Answer
		want    tray.QuitChoice
	}{
		{[]cocoa.Answer{{Button: 0}}, tray.QuitEjectAll},
		{[]cocoa.Answer{{Button: 1}}, tray.QuitLeaveMounted},
		{[]cocoa.Answer{{Button: 2}}, tray.QuitCancel},
		{nil, tray.QuitCancel}, // Esc
	} {
		w := &cocoa.FakeWindows{Answers: c.answers}
		got, err := nativeDialogs{cocoa.Dialogs{W: w}}.Quit(context.Background(), tray.QuitQuestion{Lost: []string{"Scratch"}, Saved: []string{"Work"}})
		if err != nil || got != c.want {
			t.Errorf("answers %v: Quit = %v, %v; want %v", c.answers, got, err, c.want)
		}
		if !strings.Contains(w.Alerts[0].Text, "the 2 RAM disks") || !strings.Contains(w.Alerts[0].Text, "Lost when ejected: Scratch.") {
			t.Errorf("Quit text %q", w.Alerts[0].Text)
		}
	}
}
