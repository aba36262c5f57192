package tray

import (
	"strings"
	"testing"

	"rambar/ramdisk"
)

// TestOtherUsersDisksAreOneLine: other users' disks are one disabled line
// with their count, and none of them has an item of its own.
func TestOtherUsersDisksAreOneLine(t *testing.T) {
	mine := diskState{Volume: ramdisk.Volume{Name: "Mine", Size: ramdisk.GiB}}
	a := diskState{Volume: ramdisk.Volume{Name: "Theirs", Size: ramdisk.GiB}, Whose: ramdisk.OtherUserWhose("root")}
	b := diskState{Volume: ramdisk.Volume{Name: "Scratch", Size: ramdisk.GiB}, Whose: ramdisk.OtherUserWhose("root")}
	m := buildMenu(menuState{Disks: []diskState{mine, a, b}})
	var line *Item
	for i, it := range m.Items {
		if strings.Contains(it.Title, "Theirs") || strings.HasPrefix(it.Title, "Scratch") {
			t.Errorf("another user's disk has an item: %q", it.Title)
		}
		if it.Key == "others" {
			line = &m.Items[i]
		}
	}
	if line == nil || line.Title != "2 RAM disks of other users" || !line.Disabled || len(line.Children) > 0 || !strings.Contains(line.Tooltip, "root") {
		t.Errorf("the other users' line: %+v", line)
	}
	if ramdisk.OtherUser(a.Whose) != "root" || ramdisk.OtherUser(ramdisk.Plain("is another RAMBar's disk")) != "" {
		t.Error("OtherUser does not read Whose back")
	}
}
