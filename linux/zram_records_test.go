//go:build linux

package linux

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseZramRecord(t *testing.T) {
	good := zramRecord{path: "p", boot: "b-1", pid: 42, start: 7, dev: 3, size: 1 << 20}
	if r, ok := parseZramRecord("p", good.line()); !ok || !reflect.DeepEqual(r, good) {
		t.Errorf("round trip: %+v %v", r, ok)
	}
	before, withIno := good, good
	before.dev, withIno.ino = -1, 99
	slot := strings.Repeat(" ", deviceSlot)
	for _, c := range []struct {
		text string
		dev  int
	}{
		{before.line() + slot, -1},
		{before.line() + "3\n" + slot[2:], 3},
		{good.line() + slot, 3},
		{good.line() + "3\n" + slot[2:], 3},
		{withIno.line() + slot, 3},
	} {
		if r, ok := parseZramRecord("p", c.text); !ok || r.dev != c.dev {
			t.Errorf("%q: %+v %v, want device %d", c.text, r, ok, c.dev)
		}
	}
	for _, bad := range []string{
		before.line() + "3\n", before.line() + "x\n" + slot[2:], before.line() + "3 " + slot[2:],
		before.line() + "-1\n" + slot[3:], good.line() + "4\n" + slot[2:], before.line() + slot + " ",
		before.line() + "03\n" + slot[3:], before.line()[:len(before.line())-1],
		"rambar-zram-1 b 42 7 3 1 0\n", "rambar-zram-1 b 42 7 -1 1 5\n", "rambar-zram-1 b 42 7 3 1 x\n",
	} {
		if r, ok := parseZramRecord("p", bad); ok {
			t.Errorf("%q parsed as %+v", bad, r)
		}
	}
	for _, bad := range []string{
		"", "zram3\n", "rambar-zram-1 b 42 7 3\n", "rambar-zram-2 b 42 7 3 1\n",
		"rambar-zram-1 b 0 7 3 1\n", "rambar-zram-1 b 42 7 -2 1\n", "rambar-zram-1 b 42 7 3 0\n",
		"rambar-zram-1 b 42 7 x 1\n", "rambar-zram-1 b 42 7 3 1\nrambar-zram-1 b 42 7 4 1\n",
	} {
		if r, ok := parseZramRecord("p", bad); ok {
			t.Errorf("%q parsed as %+v", bad, r)
		}
	}
}

func TestZramRecordsFolderRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "zram")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	e := &Engine{records: dir}
	if _, err := e.recordsDir(); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("a 0755 folder: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(t.TempDir(), link)
	e.records = link
	if _, err := e.recordsDir(); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a symlink: %v", err)
	}
}

func TestDefaultZramRecords(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		root bool
		env  map[string]string
		want string
	}{
		{true, map[string]string{"HOME": "/home/u"}, "/run/rambar/zram"},
		{false, map[string]string{"HOME": "/home/u"}, "/home/u/.local/share/rambar/zram"},
		{false, map[string]string{"HOME": "/home/u", "XDG_DATA_HOME": "/data"}, "/data/rambar/zram"},
		{false, map[string]string{}, ""},
	} {
		if got := defaultZramRecords(tc.root, env(tc.env)); got != tc.want {
			t.Errorf("root %v, %v: %q, want %q", tc.root, tc.env, got, tc.want)
		}
	}
}

// TestParseAddingRecord: a record written before hot_add carries the
// devices there were then, and, once its process was seen gone, those there
// were at that moment; it round-trips, takes hot_add's answer in its slot,
// and anything malformed is not a record.
func TestParseAddingRecord(t *testing.T) {
	base := zramRecord{path: "p", boot: "b", pid: 42, start: 7, dev: -1, size: 1 << 20, adding: true}
	two := []zramSeen{{0, 11}, {5, 99}}
	withAfter := base
	withAfter.before, withAfter.after, withAfter.afterSet = two, []zramSeen{{0, 11}, {1, 120}}, true
	empty := base
	empty.before = []zramSeen{}
	slot := strings.Repeat(" ", deviceSlot)
	for _, c := range []struct {
		name string
		rec  zramRecord
		line string
	}{
		{"no devices before", empty, "rambar-zram-1 b 42 7 -1 1048576 b=-\n"},
		{"two before", zramRecord{path: "p", boot: "b", pid: 42, start: 7, dev: -1, size: 1 << 20, adding: true, before: two},
			"rambar-zram-1 b 42 7 -1 1048576 b=0:11,5:99\n"},
		{"after noted", withAfter, "rambar-zram-1 b 42 7 -1 1048576 b=0:11,5:99 a=0:11,1:120\n"},
	} {
		if got := c.rec.line(); got != c.line {
			t.Errorf("%s: line %q, want %q", c.name, got, c.line)
		}
		r, ok := parseZramRecord("p", c.line+slot)
		if !ok || !reflect.DeepEqual(r, c.rec) {
			t.Errorf("%s: parsed %+v %v, want %+v", c.name, r, ok, c.rec)
		}
		if r, ok := parseZramRecord("p", c.line+"1\n"+slot[2:]); !ok || r.dev != 1 || !r.adding {
			t.Errorf("%s with hot_add's answer: %+v %v", c.name, r, ok)
		}
	}
	for _, bad := range []string{
		"rambar-zram-1 b 42 7 3 1 b=-\n",              // a device and a before list
		"rambar-zram-1 b 42 7 -1 1 b=0:0\n",           // inode 0
		"rambar-zram-1 b 42 7 -1 1 b=0:1,x\n",         // not N:INO
		"rambar-zram-1 b 42 7 -1 1 b=-1:5\n",          // negative device
		"rambar-zram-1 b 42 7 -1 1 b=0:1 x=0:1\n",     // not an after list
		"rambar-zram-1 b 42 7 -1 1 b=0:1 a=0:1 a=-\n", // too many fields
		"rambar-zram-1 b 42 7 -1 1 a=0:1\n",           // an after list alone
	} {
		if r, ok := parseZramRecord("p", bad+slot); ok {
			t.Errorf("%q parsed as %+v", bad, r)
		}
	}
}
