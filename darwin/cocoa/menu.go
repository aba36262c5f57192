package cocoa

import (
	"bytes"
	"strings"
)

// MenuBar is what RAMBar's status item shows: a template icon (PNG), the
// title beside it, the tooltip and the menu. app converts the tray's Menu
// into it.
type MenuBar struct {
	Icon           []byte
	Title, Tooltip string
	Items          []MenuItem
}

// MenuItem is one entry of the status item's menu. Key names it for
// clicks; a separator has none.
type MenuItem struct {
	Key, Title, Tooltip string
	Separator, Checkbox bool
	Checked, Disabled   bool
	Children            []MenuItem
}

// menuShape is what must stay the same for the menu to be updated in
// place (titles, tooltips, ticks and enabled states change freely): keys,
// nesting, separators and checkboxes. An open menu is then not rebuilt
// under the pointer on every refresh.
func menuShape(items []MenuItem) string {
	var b strings.Builder
	var walk func([]MenuItem)
	walk = func(items []MenuItem) {
		for _, it := range items {
			switch {
			case it.Separator:
				b.WriteString("-")
			default:
				b.WriteString(it.Key)
			}
			if it.Checkbox {
				b.WriteString("☑")
			}
			if len(it.Children) > 0 {
				b.WriteString("[")
				walk(it.Children)
				b.WriteString("]")
			}
			b.WriteString("\x00")
		}
	}
	walk(items)
	return b.String()
}

// walkItems calls f for every item that is not a separator, parents first.
func walkItems(items []MenuItem, f func(MenuItem)) {
	for _, it := range items {
		if it.Separator {
			continue
		}
		f(it)
		walkItems(it.Children, f)
	}
}

// itemChange is what differs between an item as shown and as wanted.
type itemChange struct {
	title, tooltip, checked, enabled bool
}

func (c itemChange) any() bool { return c.title || c.tooltip || c.checked || c.enabled }

func changeOf(was, want MenuItem) itemChange {
	return itemChange{
		title:   was.Title != want.Title,
		tooltip: was.Tooltip != want.Tooltip,
		checked: was.Checked != want.Checked,
		enabled: was.Disabled != want.Disabled,
	}
}

// sameIcon reports whether two icons are the same image bytes.
func sameIcon(a, b []byte) bool { return bytes.Equal(a, b) }
