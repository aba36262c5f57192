package cocoa

import (
	"fmt"
	"strings"
)

// An LSUIElement app has no menu bar of its own, but AppKit still sends a
// key equivalent (⌘V) through the app's main menu: without one, ⌘C, ⌘V,
// ⌘X, ⌘A and ⌘Z beep in every text field of every dialog. So RAMBar sets a
// main menu that is never shown, with an Edit submenu whose entries send
// the standard actions to the first responder (nil target): the text field
// being edited.

// EditCommand is one entry of the Edit menu: its title, the action sent to
// the first responder, and its key equivalent (with ⌘, and ⇧ when Shift).
// A command with no Action is a separator.
type EditCommand struct {
	Title, Action, Key string
	Shift              bool
}

// editMenu is the Edit submenu of the main menu, as macOS apps have it.
var editMenu = []EditCommand{
	{Title: "Undo", Action: "undo:", Key: "z"},
	{Title: "Redo", Action: "redo:", Key: "z", Shift: true},
	{},
	{Title: "Cut", Action: "cut:", Key: "x"},
	{Title: "Copy", Action: "copy:", Key: "c"},
	{Title: "Paste", Action: "paste:", Key: "v"},
	{Title: "Select All", Action: "selectAll:", Key: "a"},
}

// NSEventModifierFlags of a key equivalent.
const (
	modifierShift   = 1 << 17
	modifierCommand = 1 << 20
)

// mask is the command's key equivalent modifier mask.
func (c EditCommand) mask() uint {
	m := uint(modifierCommand)
	if c.Shift {
		m |= modifierShift
	}
	return m
}

// MenuEntry is an entry of the main menu's Edit submenu as read back from
// AppKit (the self-test's record of it).
type MenuEntry struct {
	Title     string `json:"title"`
	Action    string `json:"action,omitempty"`
	Key       string `json:"key,omitempty"`
	Mask      uint   `json:"mask,omitempty"`
	HasTarget bool   `json:"has_target,omitempty"`
	Separator bool   `json:"separator,omitempty"`
}

// String is the entry as a menu shows it: "Paste ⌘V".
func (e MenuEntry) String() string {
	if e.Separator {
		return "—"
	}
	keys := ""
	if e.Mask&modifierShift != 0 {
		keys += "⇧"
	}
	if e.Mask&modifierCommand != 0 {
		keys += "⌘"
	}
	return fmt.Sprintf("%s %s%s (%s)", e.Title, keys, strings.ToUpper(e.Key), e.Action)
}

// CheckEditMenu compares the Edit entries read back from AppKit with what
// RAMBar sets, and returns what is wrong: a command missing, on another
// key, or sent to a fixed target instead of the first responder.
func CheckEditMenu(got []MenuEntry) []string {
	if len(got) == 0 {
		return []string{"the main menu has no Edit submenu: ⌘C, ⌘V, ⌘X, ⌘A and ⌘Z beep in every text field"}
	}
	byAction := map[string]MenuEntry{}
	for _, e := range got {
		if !e.Separator {
			byAction[e.Action] = e
		}
	}
	var bad []string
	for _, c := range editMenu {
		if c.Action == "" {
			continue
		}
		e, ok := byAction[c.Action]
		switch {
		case !ok:
			bad = append(bad, fmt.Sprintf("no %s entry (%s)", c.Title, c.Action))
		case e.Key != c.Key || e.Mask != c.mask():
			bad = append(bad, fmt.Sprintf("%s is on %q mask %#x, want %q mask %#x", c.Title, e.Key, e.Mask, c.Key, c.mask()))
		case e.HasTarget:
			bad = append(bad, fmt.Sprintf("%s has a fixed target: it must go to the first responder (nil target)", c.Title))
		}
	}
	return bad
}
