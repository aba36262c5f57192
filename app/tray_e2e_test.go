//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rambar/internal/testbus"

	"github.com/godbus/dbus/v5"
)

// The end-to-end test of the menu-bar app: the real rambar binary, with the
// Linux engine mounting real tmpfs, driven over a private DBus session the
// way a panel drives it (com.canonical.dbusmenu). The tray runs in a child
// process, so this test is safe under -race (systray itself races).

// showMemoryOn matches the saved setting in the settings plist.
var showMemoryOn = regexp.MustCompile(`<key>ShowMemoryInTitle</key>\s*<true/>`)

// trayRefresh is the refresh interval the child runs with.
const trayRefresh = 200 * time.Millisecond

type dbusNode struct {
	ID       int32
	Label    string
	Enabled  bool
	Toggle   int32 // -1: not a checkbox
	Children []dbusNode
}

func (n dbusNode) find(prefix string) (dbusNode, bool) {
	for _, c := range n.Children {
		if strings.HasPrefix(c.Label, prefix) {
			return c, true
		}
		if f, ok := c.find(prefix); ok {
			return f, true
		}
	}
	return dbusNode{}, false
}

func (n dbusNode) text(ind string) string {
	var b strings.Builder
	for _, c := range n.Children {
		fmt.Fprintf(&b, "%s%s", ind, c.Label)
		if !c.Enabled {
			b.WriteString(" (off)")
		}
		b.WriteString("\n")
		b.WriteString(c.text(ind + "  "))
	}
	return b.String()
}

type layout struct {
	ID       int32
	Props    map[string]dbus.Variant
	Children []dbus.Variant
}

func toNode(l layout) dbusNode {
	n := dbusNode{ID: l.ID, Enabled: true, Toggle: -1}
	if v, ok := l.Props["label"]; ok {
		n.Label, _ = v.Value().(string)
	}
	if v, ok := l.Props["type"]; ok && v.Value() == "separator" {
		n.Label = "----"
	}
	if v, ok := l.Props["enabled"]; ok {
		n.Enabled, _ = v.Value().(bool)
	}
	if v, ok := l.Props["visible"]; ok {
		if vis, _ := v.Value().(bool); !vis {
			n.Label = "(hidden) " + n.Label
		}
	}
	if v, ok := l.Props["toggle-state"]; ok {
		n.Toggle, _ = v.Value().(int32)
	}
	for _, c := range l.Children {
		var cl layout
		if err := dbus.Store([]any{c.Value()}, &cl); err == nil {
			n.Children = append(n.Children, toNode(cl))
		}
	}
	return n
}

// trayApp is the running child with its bus.
type trayApp struct {
	t      *testing.T
	bin    string
	env    []string
	root   string
	home   string
	conn   *dbus.Conn
	menu   dbus.BusObject
	cmd    *exec.Cmd
	exited chan struct{} // closed when the child has exited
	mu     sync.Mutex
	stderr bytes.Buffer
}

func (a *trayApp) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stderr.Write(p)
}

func (a *trayApp) log() string { a.mu.Lock(); defer a.mu.Unlock(); return a.stderr.String() }

func buildRambar(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "rambar")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func startTray(t *testing.T) *trayApp {
	t.Helper()
	return startTrayEnv(t, "LANGUAGE=", "LC_ALL=", "LC_MESSAGES=", "LANG=C.UTF-8") // English, whatever the machine's locale
}

// startTrayEnv is startTray with more environment (a language).
func startTrayEnv(t *testing.T, extra ...string) *trayApp {
	t.Helper()
	addr := testbus.Private(t)
	hostWatcher(t, addr)
	a := &trayApp{t: t, bin: buildRambar(t), root: t.TempDir(), home: t.TempDir()}
	a.env = append(os.Environ(),
		"DBUS_SESSION_BUS_ADDRESS="+addr,
		"RAMBAR_MOUNT_ROOT="+a.root,
		"RAMBAR_HOME="+a.home,
		"RAMBAR_REFRESH="+trayRefresh.String(),
		"RAMBAR_NOTIFY=log",
		"RAMBAR_DEBUG=1",
	)
	a.env = append(a.env, extra...)
	t.Cleanup(func() { unmountUnder(t, a.root) })
	a.cmd = exec.Command(a.bin)
	a.cmd.Env = a.env
	a.cmd.Stderr = a
	a.cmd.Stdout = a
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a.exited = make(chan struct{})
	go func() { a.cmd.Wait(); close(a.exited) }()
	t.Cleanup(func() {
		a.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-a.exited:
		case <-time.After(5 * time.Second):
			a.cmd.Process.Kill()
			<-a.exited
		}
		if t.Failed() {
			t.Logf("rambar stderr:\n%s", a.log())
		}
	})
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	a.conn = conn
	name := fmt.Sprintf("org.kde.StatusNotifierItem-%d-1", a.cmd.Process.Pid)
	deadline := time.Now().Add(10 * time.Second)
	for {
		var has bool
		conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&has)
		if has {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tray never took %s; stderr:\n%s", name, a.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.menu = conn.Object(name, "/StatusNotifierItem/menu")
	return a
}

// layout reads the whole menu. systray answers the first GetLayout after a
// rebuild with depth 1 only, so a menu whose submenus are empty is read again.
func (a *trayApp) layout() dbusNode {
	a.t.Helper()
	for i := 0; ; i++ {
		var rev uint32
		var l layout
		if err := a.menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &l); err != nil {
			a.t.Fatalf("GetLayout: %v", err)
		}
		n := toNode(l)
		if nw, ok := n.find("New RAM Disk"); (ok && len(nw.Children) > 0) || i == 20 {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitMenu polls the menu until ok holds, for at most d.
func (a *trayApp) waitMenu(what string, d time.Duration, ok func(dbusNode) bool) dbusNode {
	a.t.Helper()
	deadline := time.Now().Add(d)
	for {
		n := a.layout()
		if ok(n) {
			return n
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("after %v: no %s; menu:\n%s", d, what, n.text(""))
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (a *trayApp) click(n dbusNode) {
	a.t.Helper()
	if err := a.menu.Call("com.canonical.dbusmenu.Event", 0, n.ID, "clicked", dbus.MakeVariant(int32(0)), uint32(time.Now().Unix())).Err; err != nil {
		a.t.Fatalf("Event(%d clicked): %v", n.ID, err)
	}
}

// item finds an item by the start of its label, waiting for it.
func (a *trayApp) item(prefix string) dbusNode {
	a.t.Helper()
	var it dbusNode
	a.waitMenu("item "+prefix, 10*time.Second, func(n dbusNode) bool {
		var ok bool
		it, ok = n.find(prefix)
		return ok && it.Enabled
	})
	return it
}

func (a *trayApp) waitLog(sub string) {
	a.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(a.log(), sub) {
		if time.Now().After(deadline) {
			a.t.Fatalf("stderr never said %q:\n%s", sub, a.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// mountedAt reports whether a tmpfs is mounted at dir (/proc/self/mountinfo).
func mountedAt(t *testing.T, dir string) bool {
	t.Helper()
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && unescapeMount(f[4]) == dir {
			return true
		}
	}
	return false
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

func waitMount(t *testing.T, dir string, want bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for mountedAt(t, dir) != want {
		if time.Now().After(deadline) {
			t.Fatalf("mounted(%s) never became %v", dir, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// unmountUnder detaches whatever a failed test left under root.
func unmountUnder(t *testing.T, root string) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(unescapeMount(f[4]), root+"/") {
			if err := syscall.Unmount(unescapeMount(f[4]), syscall.MNT_DETACH); err != nil {
				t.Errorf("cleanup: umount %s: %v", f[4], err)
			}
		}
	}
}

func TestTrayEndToEnd(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("the tray end-to-end test mounts tmpfs and must run as root (as CI does)")
	}
	a := startTray(t)
	n := a.waitMenu("empty menu", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("No RAM Disks"); return ok })
	for _, want := range []string{"New RAM Disk", "RAM disks hold 0 B of", "Eject All", "Show Memory in Menu Bar", "Quit RAMBar"} {
		if _, ok := n.find(want); !ok {
			t.Errorf("menu lacks %q:\n%s", want, n.text(""))
		}
	}

	// A ready size makes "RAMDisk", a real tmpfs, and it shows in the menu.
	a.click(a.item("1 GiB"))
	disk := filepath.Join(a.root, "RAMDisk")
	waitMount(t, disk, true)
	if it := a.item("RAMDisk — "); !regexp.MustCompile(`^RAMDisk — [0-9.]+ [KMG]?i?B of 1 GiB, [0-9.]+ [KMG]?i?B in memory$`).MatchString(it.Label) {
		t.Errorf("disk entry %q", it.Label)
	}
	a.click(a.item("2 GiB"))
	waitMount(t, filepath.Join(a.root, "RAMDisk-2"), true)
	a.item("RAMDisk-2 — ")

	// The title checkbox shows the memory held in the menu-bar title and is
	// saved in the settings.
	a.click(a.item("Show Memory in Menu Bar"))
	a.waitMenu("the checkbox ticked", 10*time.Second, func(n dbusNode) bool { c, _ := n.find("Show Memory"); return c.Toggle == 1 })
	item := a.conn.Object(a.menu.Destination(), "/StatusNotifierItem")
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := item.GetProperty("org.kde.StatusNotifierItem.Title")
		if title, _ := v.Value().(string); err == nil && strings.HasSuffix(title, "B") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("menu-bar title never showed the memory held: %v %v", v, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for {
		data, err := os.ReadFile(filepath.Join(a.home, "settings.plist"))
		if err == nil && showMemoryOn.Match(data) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("setting not saved: %v\n%s", err, data)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Eject from its submenu: the mount and the entry go.
	n = a.layout()
	d2, _ := n.find("RAMDisk-2 — ")
	ej, ok := d2.find("Eject")
	if !ok {
		t.Fatalf("no Eject in RAMDisk-2's submenu:\n%s", n.text(""))
	}
	a.click(ej)
	waitMount(t, filepath.Join(a.root, "RAMDisk-2"), false)
	a.waitMenu("RAMDisk-2 gone", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("RAMDisk-2 — "); return !ok })

	// A busy eject names the holder and offers Force Eject, which works.
	f, err := os.Create(filepath.Join(disk, "held"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n = a.layout()
	d1, _ := n.find("RAMDisk — ")
	ej, _ = d1.find("Eject")
	a.click(ej)
	a.waitLog("notify: Can't eject RAMDisk")
	if !mountedAt(t, disk) {
		t.Fatal("a busy eject unmounted the disk")
	}
	force := a.item("Force Eject")
	n = a.layout()
	if _, ok := n.find("In use by"); !ok {
		t.Errorf("holders not shown:\n%s", n.text(""))
	}
	a.click(force)
	waitMount(t, disk, false)
	a.waitMenu("RAMDisk gone", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("RAMDisk — "); return !ok })
	f.Close()

	// A disk made outside the app (the CLI) appears within a refresh or two;
	// ejected by the CLI (through the app's local API or not), it goes and
	// is no news; unmounted behind RAMBar's back, it goes and the app says
	// so.
	cli := exec.Command(a.bin, "create", "Outside", "64M")
	cli.Env = a.env
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("rambar create: %v\n%s", err, out)
	}
	made := time.Now()
	a.waitMenu("Outside in the menu", 3*trayRefresh+2*time.Second, func(n dbusNode) bool { _, ok := n.find("Outside — "); return ok })
	t.Logf("a disk made by the CLI showed in the menu after %v (refresh every %v)", time.Since(made).Round(time.Millisecond), trayRefresh)
	cli = exec.Command(a.bin, "eject", "Outside")
	cli.Env = a.env
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("rambar eject: %v\n%s", err, out)
	}
	a.waitMenu("Outside gone", 3*trayRefresh+2*time.Second, func(n dbusNode) bool { _, ok := n.find("Outside — "); return !ok })
	rambar := func(args ...string) {
		t.Helper()
		cli := exec.Command(a.bin, args...)
		cli.Env = a.env
		if out, err := cli.CombinedOutput(); err != nil {
			t.Fatalf("rambar %q: %v\n%s", args, err, out)
		}
	}
	inMenu := func(name string, in bool) {
		t.Helper()
		a.waitMenu(fmt.Sprintf("%s in the menu: %v", name, in), 3*trayRefresh+2*time.Second, func(n dbusNode) bool { _, ok := n.find(name + " — "); return ok == in })
	}
	rambar("create", "Lost", "64M")
	inMenu("Lost", true)
	rambar("eject", "Lost", "--direct") // the CLI's own eject, not the app's: no news either
	inMenu("Lost", false)
	rambar("create", "Lost", "64M")
	inMenu("Lost", true)
	if out, err := exec.Command("umount", filepath.Join(a.root, "Lost")).CombinedOutput(); err != nil {
		t.Fatalf("umount: %v\n%s", err, out)
	}
	a.waitLog("notify: Lost is gone")
	for _, name := range []string{"Outside", "Lost"} {
		if n := strings.Count(a.log(), "notify: "+name+" is gone"); name == "Outside" && n != 0 || name == "Lost" && n != 1 {
			t.Errorf("%q announced gone %d times:\n%s", name, n, a.log())
		}
	}

	// A kept disk made by the CLI offers Save Now (a plain one does not);
	// a file written shows the unsaved mark, and Save Now saves it.
	cli = exec.Command(a.bin, "create", "Kept", "64M", "--keep")
	cli.Env = a.env
	if out, err := cli.CombinedOutput(); err != nil {
		t.Fatalf("rambar create --keep: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(a.root, "Kept", "notes.txt"), []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	a.waitMenu("Kept marked unsaved", 20*time.Second, func(n dbusNode) bool {
		k, ok := n.find("• Kept — ")
		_, save := k.find("Save Now (unsaved changes)")
		return ok && save
	})
	a.click(a.item("Save Now (unsaved changes)"))
	a.waitMenu("Kept saved", 20*time.Second, func(n dbusNode) bool {
		k, ok := n.find("Kept — ")
		_, save := k.find("Save Now")
		_, marked := n.find("• Kept — ")
		return ok && save && !marked
	})
	info := exec.Command(a.bin, "info", "Kept", "--json")
	info.Env = a.env
	out, err := info.Output()
	if err != nil || !regexp.MustCompile(`"last_snapshot": "[^"]+"`).Match(out) {
		t.Fatalf("after Save Now, info shows no save: %v\n%s", err, out)
	}
	n = a.layout()
	k, _ := n.find("Kept — ")
	ej, _ = k.find("Eject")
	a.click(ej)
	waitMount(t, filepath.Join(a.root, "Kept"), false)
	a.waitMenu("Kept gone", 10*time.Second, func(n dbusNode) bool { _, ok := n.find("Kept — "); return !ok })

	// Quit from the menu: with no disks left it asks nothing and exits 0.
	a.click(a.item("Quit RAMBar"))
	select {
	case <-a.exited:
		if code := a.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("Quit: exit code %d", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Quit RAMBar did not end the app")
	}
	if strings.Contains(a.log(), "panic") || strings.Contains(a.log(), "DATA RACE") {
		t.Errorf("the tray logged trouble:\n%s", a.log())
	}
}

func TestTrayWithoutSessionBus(t *testing.T) {
	bin := buildRambar(t)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "DBUS_SESSION_BUS_ADDRESS=") && !strings.HasPrefix(e, "DISPLAY=") {
			env = append(env, e)
		}
	}
	env = append(env, "RAMBAR_HOME="+t.TempDir())
	for name, extra := range map[string][]string{
		"unset":    nil,
		"dead bus": {"DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(t.TempDir(), "nobus")},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin)
			cmd.Env = append(append([]string{}, env...), extra...)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatal("rambar hung without a session bus")
			}
			if err == nil {
				t.Fatalf("rambar exited 0 without a session bus: %s", out.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "no desktop session bus") {
				t.Errorf("want one line naming the missing bus, got:\n%s", out.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != exitUnsupported {
				t.Errorf("exit code %d, want %d", code, exitUnsupported)
			}
		})
	}
}
