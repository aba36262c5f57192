package main

import (
	"sync"

	"rambar/assets"
	"rambar/darwin/cocoa"
	"rambar/tray"
)

// cocoaUI is tray.UI over darwin/cocoa's status item (the purego menu bar,
// tray_off.go). It has no build tag so Linux tests convert menus with it.
type cocoaUI struct {
	mu   sync.Mutex
	s    interface{ Set(cocoa.MenuBar) }
	last *cocoa.MenuBar // shown once the status item exists
}

var _ tray.UI = (*cocoaUI)(nil)

// SetMenu implements tray.UI.
func (u *cocoaUI) SetMenu(m tray.Menu) {
	mb := menuBarOf(m)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.s == nil {
		u.last = &mb
		return
	}
	u.s.Set(mb)
}

// set attaches the status item, showing the last menu given before it.
func (u *cocoaUI) set(s interface{ Set(cocoa.MenuBar) }) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.s = s
	if u.last != nil {
		s.Set(*u.last)
		u.last = nil
	}
}

// menuBarOf is the tray's menu as the status item shows it: the template
// icon (with the warning dot when the menu asks for it).
func menuBarOf(m tray.Menu) cocoa.MenuBar {
	icon := assets.TrayTemplate
	if m.Icon == tray.IconWarning {
		icon = assets.TrayWarningTemplate
	}
	return cocoa.MenuBar{Icon: icon, Title: m.Title, Tooltip: m.Tooltip, Items: menuItemsOf(m.Items)}
}

func menuItemsOf(items []tray.Item) []cocoa.MenuItem {
	if len(items) == 0 {
		return nil
	}
	out := make([]cocoa.MenuItem, len(items))
	for i, it := range items {
		out[i] = cocoa.MenuItem{Key: it.Key, Title: it.Title, Tooltip: it.Tooltip, Separator: it.Separator,
			Checkbox: it.Checkbox, Checked: it.Checked, Disabled: it.Disabled, Children: menuItemsOf(it.Children)}
	}
	return out
}
