package cocoa

import (
	"strings"
	"sync"
	"testing"
)

// The session's wiring as the self-test reads it: each way it can be wrong
// is named.
func TestWiringProblems(t *testing.T) {
	good := Wiring{Prepared: true, Launched: true, DelegateClass: "SystrayAppDelegate", PreparedClass: "SystrayAppDelegate",
		AnswersTerminate: true, Watching: true, RelaunchDisabled: true,
		Accessory: true, SleepHeld: true}
	if got := good.SessionProblems(); len(got) != 0 {
		t.Fatalf("good wiring: %q", got)
	}
	for _, c := range []struct {
		name string
		edit func(*Wiring)
		want string
	}{
		{"not prepared", func(w *Wiring) { w.Prepared = false }, "Prepare did not run"},
		{"swapped", func(w *Wiring) { w.DelegateClass = "OtherDelegate" }, "swapped"},
		{"no delegate", func(w *Wiring) { w.DelegateClass = "" }, "no delegate"},
		{"no terminate", func(w *Wiring) { w.AnswersTerminate = false }, "applicationShouldTerminate:"},
		{"not watching", func(w *Wiring) { w.Watching, w.SleepHeld = false, false }, "no Guard"},
		{"a Dock icon", func(w *Wiring) { w.Accessory = false }, "Accessory"},
		{"sleep not held", func(w *Wiring) { w.SleepHeld = false }, "IORegisterForSystemPower"},
		{"relaunch", func(w *Wiring) { w.RelaunchDisabled = false }, "disableRelaunchOnLogin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := good
			c.edit(&w)
			got := w.SessionProblems()
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("SessionProblems = %q, want one saying %q", got, c.want)
			}
		})
	}
}

func TestDialogProbeProblems(t *testing.T) {
	good := DialogProbe{Active: true, KeyIsAlert: true, FieldEditing: true, PasteTarget: true, SelectAllKey: true, PopupItems: 3, PopupWant: 3}
	if got := good.Problems(); len(got) != 0 {
		t.Fatalf("good dialog: %q", got)
	}
	bad := DialogProbe{PopupItems: 2, PopupWant: 3}
	got := bad.Problems()
	if len(got) != 6 || !strings.Contains(got[5], "collapsed") || !strings.Contains(got[0], "active") {
		t.Errorf("Problems = %q, want all six named", got)
	}
}

// Modal loops nest (the Folder… panel inside the New RAM Disk window): when
// the inner one ends the outer one still runs, so an ended ctx still
// aborts it. One flag set and cleared by each loop read "none" there.
func TestModalCountNests(t *testing.T) {
	var m modalCount
	if m.running() {
		t.Fatal("running before any loop")
	}
	m.enter() // the form
	m.enter() // the folder panel
	m.leave() // the panel closes
	if !m.running() {
		t.Error("the form's loop is not seen as running after the panel closed")
	}
	m.leave()
	if m.running() {
		t.Error("running after both loops ended")
	}
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() { defer wg.Done(); m.enter(); m.leave() }()
	}
	wg.Wait()
	if m.running() {
		t.Error("running after balanced enters and leaves")
	}
}
