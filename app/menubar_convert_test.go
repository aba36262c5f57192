package main

import (
	"bytes"
	"testing"

	"rambar/assets"
	"rambar/darwin/cocoa"
	"rambar/tray"
)

type shownBar struct{ bars []cocoa.MenuBar }

func (s *shownBar) Set(m cocoa.MenuBar) { s.bars = append(s.bars, m) }

func TestCocoaUI(t *testing.T) {
	m := tray.Menu{Title: "1.2 GB", Tooltip: "RAMBar", Icon: tray.IconWarning, Items: []tray.Item{
		{Key: "new", Title: "New RAM Disk", Children: []tray.Item{{Key: "new/1G", Title: "1 GiB", Disabled: true}}},
		{Separator: true},
		{Key: "title", Title: "Show Memory in Menu Bar", Checkbox: true, Checked: true, Tooltip: "tip"},
	}}
	ui := &cocoaUI{}
	ui.SetMenu(m) // before the status item exists: kept
	s := &shownBar{}
	ui.set(s)
	if len(s.bars) != 1 {
		t.Fatalf("the menu given before the status item was shown %d times, want once", len(s.bars))
	}
	b := s.bars[0]
	if b.Title != "1.2 GB" || b.Tooltip != "RAMBar" || !bytes.Equal(b.Icon, assets.TrayWarningTemplate) {
		t.Errorf("bar %q %q, warning icon %v", b.Title, b.Tooltip, bytes.Equal(b.Icon, assets.TrayWarningTemplate))
	}
	want := []cocoa.MenuItem{
		{Key: "new", Title: "New RAM Disk", Children: []cocoa.MenuItem{{Key: "new/1G", Title: "1 GiB", Disabled: true}}},
		{Separator: true},
		{Key: "title", Title: "Show Memory in Menu Bar", Checkbox: true, Checked: true, Tooltip: "tip"},
	}
	if len(b.Items) != 3 || !sameItem(b.Items[0].Children[0], want[0].Children[0]) || !b.Items[1].Separator || !sameItem(b.Items[2], want[2]) || b.Items[0].Title != want[0].Title {
		t.Errorf("items %+v\nwant %+v", b.Items, want)
	}
	m.Icon = tray.IconNormal
	ui.SetMenu(m)
	if len(s.bars) != 2 || !bytes.Equal(s.bars[1].Icon, assets.TrayTemplate) {
		t.Error("a later menu is not shown at once, or not with the plain icon")
	}
}

func sameItem(a, b cocoa.MenuItem) bool {
	return a.Key == b.Key && a.Title == b.Title && a.Tooltip == b.Tooltip && a.Checkbox == b.Checkbox && a.Checked == b.Checked && a.Disabled == b.Disabled && a.Separator == b.Separator
}
