package cocoa

import (
	"strings"
	"testing"
)

// asBuilt is the Edit menu as AppKit would hand it back for editMenu.
func asBuilt() []MenuEntry {
	var out []MenuEntry
	for _, c := range editMenu {
		if c.Action == "" {
			out = append(out, MenuEntry{Separator: true})
			continue
		}
		out = append(out, MenuEntry{Title: c.Title, Action: c.Action, Key: c.Key, Mask: c.mask()})
	}
	return out
}

// The Edit menu has the standard commands on their standard keys, every
// one sent to the first responder.
func TestEditMenu(t *testing.T) {
	want := map[string]string{"cut:": "x", "copy:": "c", "paste:": "v", "selectAll:": "a", "undo:": "z", "redo:": "z"}
	for _, c := range editMenu {
		if c.Action == "" {
			continue
		}
		if want[c.Action] != c.Key {
			t.Errorf("%s on %q, want %q", c.Action, c.Key, want[c.Action])
		}
		if c.mask()&modifierCommand == 0 || (c.Action == "redo:") != (c.mask()&modifierShift != 0) {
			t.Errorf("%s mask %#x: want ⌘, and ⇧ for redo only", c.Action, c.mask())
		}
		if arity(c.Action) != 1 {
			t.Errorf("%s is not an action (one argument, the sender)", c.Action)
		}
		delete(want, c.Action)
	}
	if len(want) > 0 {
		t.Errorf("missing: %v", want)
	}
	if got := CheckEditMenu(asBuilt()); len(got) != 0 {
		t.Errorf("CheckEditMenu(as built) = %q", got)
	}
	if s := asBuilt()[1].String(); s != "Redo ⇧⌘Z (redo:)" {
		t.Errorf("String = %q", s)
	}
}

// What the self-test reports when the menu read back from AppKit is not
// what RAMBar sets.
func TestCheckEditMenu(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func([]MenuEntry) []MenuEntry
		want string
	}{
		{"no menu", func([]MenuEntry) []MenuEntry { return nil }, "no Edit submenu"},
		{"no paste", func(m []MenuEntry) []MenuEntry { return append(m[:5:5], m[6:]...) }, "no Paste entry"},
		{"wrong key", func(m []MenuEntry) []MenuEntry { m[5].Key = "b"; return m }, "Paste is on \"b\""},
		{"no shift", func(m []MenuEntry) []MenuEntry { m[1].Mask = modifierCommand; return m }, "Redo is on"},
		{"fixed target", func(m []MenuEntry) []MenuEntry { m[4].HasTarget = true; return m }, "Copy has a fixed target"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := CheckEditMenu(c.edit(asBuilt()))
			if len(got) != 1 || !strings.Contains(got[0], c.want) {
				t.Errorf("CheckEditMenu = %q, want one problem saying %q", got, c.want)
			}
		})
	}
}
