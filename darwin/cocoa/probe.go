package cocoa

import "fmt"

// Wiring is how the native side is set up in this process, read back from
// AppKit (Probe): what the self-test's session and main-menu lines check.
type Wiring struct {
	// Prepared: Prepare ran before the run loop started.
	Prepared bool `json:"prepared"`
	// Launched: AppKit finished launching (the main menu is set then).
	Launched bool `json:"launched"`
	// DelegateClass is the class of NSApp's delegate; PreparedClass the one
	// Prepare added applicationShouldTerminate: to.
	DelegateClass string `json:"delegate_class"`
	PreparedClass string `json:"prepared_class"`
	// AnswersTerminate: the delegate answers applicationShouldTerminate:.
	AnswersTerminate bool `json:"answers_terminate"`
	// Watching: a Guard watches the session (Watch).
	Watching bool `json:"watching"`
	// RelaunchDisabled: disableRelaunchOnLogin was sent at start.
	RelaunchDisabled bool `json:"relaunch_disabled"`
	// Accessory: NSApp's activation policy is Accessory (no Dock icon).
	Accessory bool `json:"accessory"`
	// SleepHeld: RAMBar is registered for the system's power messages
	// (IORegisterForSystemPower), so sleep waits for the save.
	SleepHeld bool `json:"sleep_held"`
	// NotificationDelegate: UNUserNotificationCenter's delegate is RAMBar's
	// (notifications show while RAMBar is frontmost).
	NotificationDelegate bool `json:"notification_delegate"`
	// EditMenu is the main menu's Edit submenu.
	EditMenu []MenuEntry `json:"edit_menu"`
}

// SessionProblems is what keeps logout, sleep and quit from saving as they
// should, in words; none when the wiring is right.
func (w Wiring) SessionProblems() []string {
	var bad []string
	switch {
	case !w.Prepared:
		bad = append(bad, "cocoa.Prepare did not run before the run loop: applicationShouldTerminate: is not answered")
	case w.DelegateClass == "":
		bad = append(bad, "NSApp has no delegate")
	case w.PreparedClass != "" && w.DelegateClass != w.PreparedClass:
		bad = append(bad, fmt.Sprintf("NSApp's delegate is a %s, but Prepare readied %s: the delegate was swapped or its class renamed", w.DelegateClass, w.PreparedClass))
	}
	if !w.AnswersTerminate {
		bad = append(bad, "the app delegate does not answer applicationShouldTerminate:: logout would not wait for the save")
	}
	if !w.Watching {
		bad = append(bad, "no Guard watches the session: logout, sleep and quit do not save")
	}
	if !w.RelaunchDisabled {
		bad = append(bad, "disableRelaunchOnLogin was not sent: macOS would reopen RAMBar beside the login item")
	}
	if !w.Accessory {
		bad = append(bad, "the activation policy is not Accessory: RAMBar shows a Dock icon")
	}
	if w.Watching && !w.SleepHeld {
		bad = append(bad, "not registered for the system's power messages (IORegisterForSystemPower): sleep does not wait for the save")
	}
	return bad
}

// DialogProbe is what a dialog looked like while it was up (ProbeDialog):
// the checks of a window that takes the keyboard on macOS 14 and later,
// and of a popup whose items share a title.
type DialogProbe struct {
	// Active: RAMBar was the active app.
	Active bool `json:"active"`
	// KeyIsAlert: the key window was the alert's.
	KeyIsAlert bool `json:"key_is_alert"`
	// FieldEditing: the alert's text field was being edited (first responder).
	FieldEditing bool `json:"field_editing"`
	// PasteTarget: paste: from the first responder reaches a receiver.
	PasteTarget bool `json:"paste_target"`
	// SelectAllKey: ⌘A, sent as a key event, was taken by the main menu.
	SelectAllKey bool `json:"select_all_key"`
	// PopupItems is how many items a popup made with PopupWant items, two
	// of them with the same title, holds.
	PopupItems int `json:"popup_items"`
	PopupWant  int `json:"popup_want"`
}

// Problems is what would keep the user from typing or pasting in RAMBar's
// dialogs, in words.
func (f DialogProbe) Problems() []string {
	var bad []string
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{f.Active, "RAMBar was not the active app while its dialog was up (activateIgnoringOtherApps: ignored?)"},
		{f.KeyIsAlert, "the dialog was not the key window: typing goes elsewhere"},
		{f.FieldEditing, "the dialog's text field was not being edited"},
		{f.PasteTarget, "paste: from the text field reaches no receiver"},
		{f.SelectAllKey, "⌘A was not taken by the main menu: key equivalents beep"},
	} {
		if !c.ok {
			bad = append(bad, c.what)
		}
	}
	if f.PopupItems != f.PopupWant {
		bad = append(bad, fmt.Sprintf("a popup given %d items holds %d: items of the same title collapsed", f.PopupWant, f.PopupItems))
	}
	return bad
}
