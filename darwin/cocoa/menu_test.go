package cocoa

import "testing"

func TestMenuShape(t *testing.T) {
	base := []MenuItem{
		{Key: "new", Title: "New RAM Disk", Children: []MenuItem{{Key: "new/1G", Title: "1 GiB"}}},
		{Separator: true},
		{Key: "title", Title: "Show Memory in Menu Bar", Checkbox: true},
		{Key: "quit", Title: "Quit RAMBar"},
	}
	same := func(f func([]MenuItem)) []MenuItem {
		m := clone(base)
		f(m)
		return m
	}
	for _, c := range []struct {
		name  string
		items []MenuItem
		same  bool
	}{
		{"titles, ticks and states change in place", same(func(m []MenuItem) {
			m[0].Children[0].Title = "2 GiB"
			m[2].Checked = true
			m[3].Disabled = true
			m[3].Tooltip = "bye"
		}), true},
		{"a new key rebuilds", same(func(m []MenuItem) { m[3].Key = "quit2" }), false},
		{"a checkbox that is no longer one rebuilds", same(func(m []MenuItem) { m[2].Checkbox = false }), false},
		{"a new child rebuilds", same(func(m []MenuItem) {
			m[0].Children = append(m[0].Children, MenuItem{Key: "new/2G"})
		}), false},
		{"a separator that moves rebuilds", []MenuItem{base[0], base[2], base[1], base[3]}, false},
	} {
		if got := menuShape(c.items) == menuShape(base); got != c.same {
			t.Errorf("%s: same shape = %v, want %v", c.name, got, c.same)
		}
	}
	var keys []string
	walkItems(base, func(it MenuItem) { keys = append(keys, it.Key) })
	if len(keys) != 4 || keys[0] != "new" || keys[1] != "new/1G" || keys[3] != "quit" {
		t.Errorf("walkItems visited %q", keys)
	}
}

func clone(items []MenuItem) []MenuItem {
	out := append([]MenuItem(nil), items...)
	for i := range out {
		out[i].Children = clone(out[i].Children)
	}
	return out
}

func TestChangeOf(t *testing.T) {
	was := MenuItem{Key: "k", Title: "A", Tooltip: "t"}
	if changeOf(was, was).any() {
		t.Error("an unchanged item has changes")
	}
	c := changeOf(was, MenuItem{Key: "k", Title: "B", Tooltip: "t", Checked: true, Disabled: true})
	if !c.title || c.tooltip || !c.checked || !c.enabled {
		t.Errorf("changes %+v", c)
	}
	if !sameIcon([]byte{1, 2}, []byte{1, 2}) || sameIcon([]byte{1}, []byte{2}) {
		t.Error("sameIcon")
	}
}
