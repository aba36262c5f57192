package tray

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"rambar/i18n"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"rambar/settingsfile"

	"rambar/ramdisk"
	"rambar/ramdisk/ramdisktest"
)

// fakeUI keeps the last menu it was given.
type fakeUI struct {
	mu   sync.Mutex
	last Menu
	n    int
}

func (u *fakeUI) SetMenu(m Menu) { u.mu.Lock(); u.last = m; u.n++; u.mu.Unlock() }

func (u *fakeUI) menu() Menu { u.mu.Lock(); defer u.mu.Unlock(); return u.last }

// counting wraps an engine and counts calls.
type counting struct {
	ramdisk.Engine
	caps          ramdisk.Caps
	lists, usages atomic.Int64
}

func (c *counting) Caps() ramdisk.Caps { return c.caps }
func (c *counting) List(ctx context.Context) ([]ramdisk.Volume, error) {
	c.lists.Add(1)
	return c.Engine.List(ctx)
}
func (c *counting) Usage(ctx context.Context, v ramdisk.Volume) (ramdisk.Usage, error) {
	c.usages.Add(1)
	return c.Engine.Usage(ctx, v)
}

// fakeDialogs answers dialogs from the test.
type fakeDialogs struct {
	form     NewDiskForm // the answers
	asked    NewDiskForm // the defaults the window was opened with
	checked  chan string // the plan text or refusal the dialog would show
	quit     QuitChoice
	asking   QuitQuestion // what the quit dialog was asked
	messages chan string
	results  chan string // each Result window: title, text and action
	act      bool        // Result's answer: the action was pressed
}

func (f *fakeDialogs) NewDisk(ctx context.Context, form NewDiskForm, fss []ramdisk.FileSystem, check func(NewDiskForm) (ramdisk.Plan, error)) (NewDiskForm, ramdisk.Plan, error) {
	f.asked = form
	answers := f.form // read before the test hears back and changes it
	p, err := check(answers)
	if err != nil {
		f.checked <- PlanRefusal(err)
		return answers, ramdisk.Plan{}, ramdisk.ErrCancelled
	}
	f.checked <- PlanText(p)
	return answers, p, nil
}
func (f *fakeDialogs) Quit(ctx context.Context, q QuitQuestion) (QuitChoice, error) {
	f.asking = q
	return f.quit, nil
}
func (f *fakeDialogs) Message(ctx context.Context, title, text string) error {
	f.messages <- title + ": " + text
	return nil
}
func (f *fakeDialogs) Result(ctx context.Context, title, text, action string) (bool, error) {
	f.results <- title + ": " + text + "[" + action + "]"
	return f.act, nil
}

type harness struct {
	t      *testing.T
	mem    *ramdisktest.Mem
	ui     *fakeUI
	c      *Controller
	notes  chan string
	quit   chan struct{}
	store  settingsfile.Store
	cancel context.CancelFunc
	ended  chan struct{}
}

func start(t *testing.T, edit func(*Deps)) *harness {
	t.Helper()
	h := &harness{t: t, ui: &fakeUI{}, notes: make(chan string, 32), quit: make(chan struct{}), ended: make(chan struct{})}
	h.mem = ramdisktest.NewMem(t.TempDir(), gb16)
	h.store = settingsfile.Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
	var quitOnce sync.Once
	d := Deps{
		Engine:  h.mem,
		Store:   h.store,
		Notify:  func(title, text string) error { h.notes <- title + ": " + text; return nil },
		Refresh: 20 * time.Millisecond,
		Quit:    func() { quitOnce.Do(func() { close(h.quit) }) },
		Logf:    t.Logf,
	}
	if edit != nil {
		edit(&d)
	}
	h.c = New(d, h.ui)
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.c.Run(ctx); close(h.ended) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.ended:
		case <-time.After(5 * time.Second):
			t.Error("controller did not stop")
		}
	})
	return h
}

// wait polls the menu until ok holds.
func (h *harness) wait(what string, ok func(string) bool) string {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := text(h.ui.menu())
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s; menu:\n%s", what, got)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *harness) waitFor(sub string) string {
	h.t.Helper()
	return h.wait("menu with "+sub, func(s string) bool { return strings.Contains(s, sub) })
}

func (h *harness) waitGone(sub string) string {
	h.t.Helper()
	return h.wait("menu without "+sub, func(s string) bool { return !strings.Contains(s, sub) })
}

func (h *harness) note(sub string) string {
	h.t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case n := <-h.notes:
			if strings.Contains(n, sub) {
				return n
			}
			h.t.Logf("other notification: %s", n)
		case <-timeout:
			h.t.Fatalf("no notification with %q", sub)
		}
	}
}

func (h *harness) create(name string, size ramdisk.Size) ramdisk.Volume {
	h.t.Helper()
	v, err := h.mem.Create(context.Background(), ramdisk.Plan{Name: name, Size: size, FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite})
	if err != nil {
		h.t.Fatal(err)
	}
	return v
}

func TestReadySizeNamesAndEject(t *testing.T) {
	h := start(t, nil)
	h.waitFor("No RAM Disks")
	h.c.Click("new/1 GiB")
	h.waitFor("RAMDisk — 0 B of 1 GiB, 0 B in memory")
	h.c.Click("new/2 GiB")
	h.waitFor("RAMDisk-2 — 0 B of 2 GiB")
	vs, _ := h.mem.List(context.Background())
	if len(vs) != 2 || vs[0].Size != ramdisk.GiB || vs[1].Size != 2*ramdisk.GiB {
		t.Fatalf("engine has %+v", vs)
	}
	h.c.Click("disk/RAMDisk/eject")
	h.waitGone("RAMDisk — ")
	h.waitFor("RAMDisk-2 — ")
	if vs, _ := h.mem.List(context.Background()); len(vs) != 1 {
		t.Fatalf("after eject the engine has %+v", vs)
	}
	// The first free name is taken again.
	h.c.Click("new/1 GiB")
	h.waitFor("RAMDisk — 0 B of 1 GiB")
	select {
	case n := <-h.notes:
		t.Errorf("unexpected notification: %s", n)
	default:
	}
}

func TestBusyEjectOffersForceEject(t *testing.T) {
	h := start(t, nil)
	v := h.create("Scratch", ramdisk.GiB)
	release := h.mem.Hold(v, ramdisk.Holder{PID: 4242, Command: "vim"})
	defer release()
	h.waitFor("Scratch — ")
	if strings.Contains(text(h.ui.menu()), "Force Eject") {
		t.Fatal("Force Eject offered before any eject")
	}
	h.c.Click("disk/Scratch/eject")
	if n := h.note("Can't eject Scratch"); !strings.Contains(n, "vim (pid 4242)") || !strings.Contains(n, "Force Eject") {
		t.Errorf("notification: %s", n)
	}
	got := h.waitFor("Force Eject")
	if !strings.Contains(got, "In use by vim (pid 4242) (off)") {
		t.Errorf("holders not named:\n%s", got)
	}
	h.c.Click("disk/Scratch/force")
	h.waitGone("Scratch")
	if vs, _ := h.mem.List(context.Background()); len(vs) != 0 {
		t.Fatalf("force eject left %+v", vs)
	}
}

// TestBusyEjectInPlaceSaysSaveNow: a disk in place that is in use stays
// over its folder, and the notification says Save Now writes it back.
func TestBusyEjectInPlaceSaysSaveNow(t *testing.T) {
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine, inPlace: func(ramdisk.Volume) string { return "/home/me/site" }}
	})
	v := h.create("Site", ramdisk.GiB)
	release := h.mem.Hold(v, ramdisk.Holder{PID: 4242, Command: "zsh"})
	defer release()
	h.waitFor("In place at /home/me/site")
	h.c.Click("disk/Site/eject")
	if n := h.note("Can't eject Site"); !strings.Contains(n, "zsh (pid 4242)") || !strings.Contains(n, "in place at /home/me/site; Save Now writes it back") {
		t.Errorf("notification: %s", n)
	}
}

func TestOutsideChangesAndVanish(t *testing.T) {
	h := start(t, nil)
	h.waitFor("No RAM Disks")
	h.create("Outside", 512*ramdisk.MiB)
	h.waitFor("Outside — 0 B of 512 MiB, 0 B in memory")
	h.mem.Vanish("Outside")
	h.waitGone("Outside")
	if n := h.note("Outside is gone"); !strings.Contains(n, "sleep") {
		t.Errorf("notification: %s", n)
	}
	h.waitFor("No RAM Disks")
}

func TestSwapAndFullWarnings(t *testing.T) {
	h := start(t, nil)
	v := h.create("Work", 10*ramdisk.MiB)
	// Written beside the disk and moved in at once, so no refresh sees it half written.
	tmp := filepath.Join(filepath.Dir(v.MountPoint), ".f")
	os.WriteFile(tmp, make([]byte, 19*ramdisk.MiB/2), 0o600)
	if err := os.Rename(tmp, filepath.Join(v.MountPoint, "f")); err != nil {
		t.Fatal(err)
	}
	if n := h.note("Work is nearly full"); !strings.Contains(n, "95% of 10 MiB used") {
		t.Errorf("nearly full notification: %s", n)
	}
	h.mem.SetMemory(ramdisk.Memory{Physical: 16 * ramdisk.GiB, Free: ramdisk.GiB, SwapUsed: 700 * ramdisk.MiB, SwapTotal: 2 * ramdisk.GiB})
	if n := h.note("Swapping while RAM disks hold 10 MiB"); !strings.Contains(n, "700 MiB in swap") {
		t.Errorf("swap notification: %s", n)
	}
	h.waitFor("⚠ Swapping")
}

func TestStaleClickIgnored(t *testing.T) {
	h := start(t, nil)
	v := h.create("Gone", ramdisk.GiB)
	h.waitFor("Gone — ")
	h.mem.Vanish(v.Name)
	h.waitGone("Gone — ")
	h.note("Gone is gone")
	h.c.Click("disk/Gone/eject") // an item from an older menu
	h.c.Click("no/such/key")
	h.c.Click("new/1 GiB")
	h.waitFor("RAMDisk — ")
	select {
	case n := <-h.notes:
		t.Errorf("stale click caused: %s", n)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestErrorsAreNotifiedAndMenuRecovers(t *testing.T) {
	h := start(t, nil)
	h.waitFor("No RAM Disks")
	h.mem.FailNext("create", errors.New("mount: permission denied"))
	h.c.Click("new/1 GiB")
	if n := h.note("Can't make RAMDisk"); !strings.Contains(n, "permission denied") {
		t.Errorf("notification: %s", n)
	}
	h.waitGone("Creating")
	h.mem.FailNext("list", errors.New("findmnt: exit status 1"))
	h.waitFor("Can't read RAM disks: findmnt: exit status 1")
	h.waitGone("Can't read RAM disks")
	h.mem.FailNext("eject", errors.New("umount: weird failure"))
	h.create("X", ramdisk.GiB)
	h.waitFor("X — ")
	h.c.Click("disk/X/eject")
	h.note("umount: weird failure")
	got := h.waitFor("  Eject\n")
	if !strings.Contains(got, "X — ") {
		t.Errorf("disk lost after a failed eject:\n%s", got)
	}
}

func TestRefusedSizeIsDisabled(t *testing.T) {
	h := start(t, nil)
	h.mem.SetMemory(ramdisk.Memory{Physical: 8 * ramdisk.GiB})
	got := h.waitFor("8 GiB (not enough memory) (off)")
	if !strings.Contains(got, "  4 GiB\n") {
		t.Errorf("4 GiB should fit in 8 GiB:\n%s", got)
	}
	h.c.Click("new/8 GiB")
	time.Sleep(60 * time.Millisecond)
	if vs, _ := h.mem.List(context.Background()); len(vs) != 0 {
		t.Fatalf("a disabled size made %+v", vs)
	}
}

func TestToggleTitleSaves(t *testing.T) {
	h := start(t, nil)
	v := h.create("T", ramdisk.GiB)
	if err := writeFile(v.MountPoint+"/f", 3*int(ramdisk.MiB)); err != nil {
		t.Fatal(err)
	}
	h.waitFor("T — 3 MiB of 1 GiB")
	h.c.Click("showmem")
	h.waitFor("[x] Show Memory in Menu Bar")
	deadline := time.Now().Add(5 * time.Second)
	for h.ui.menu().Title != "3 MiB" {
		if time.Now().After(deadline) {
			t.Fatalf("title = %q", h.ui.menu().Title)
		}
		time.Sleep(5 * time.Millisecond)
	}
	for {
		s, err := h.store.Load()
		if err == nil && s.ShowMemoryInTitle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("setting not saved: %+v %v", s, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestToggleContinuousSaves: Settings ▸ Save Kept Disks Continuously is
// saved in the settings file (the autosave reads it there) and shown
// checked; clicked again, off.
func TestToggleContinuousSaves(t *testing.T) {
	h := start(t, nil)
	for _, want := range []bool{true, false} {
		h.c.Click("continuous")
		h.waitFor(map[bool]string{true: "[x]", false: "[ ]"}[want] + " Save Kept Disks Continuously")
		deadline := time.Now().Add(5 * time.Second)
		for {
			s, err := h.store.Load()
			if err == nil && s.SaveContinuously == want {
				break
			}
			if time.Now().After(deadline) {
				b, _ := os.ReadFile(h.store.Path)
				t.Fatalf("setting not saved as %v: %+v %v\n%s", want, s, err, b)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func TestSaveNowProgress(t *testing.T) {
	proceed := make(chan struct{})
	var dirty atomic.Bool
	dirty.Store(true)
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine, save: func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) error {
			progress(45, 100)
			<-proceed
			progress(100, 100)
			dirty.Store(false)
			return nil
		}, unsaved: func(v ramdisk.Volume) bool { return dirty.Load() }}
	})
	h.create("Kept", ramdisk.GiB)
	h.waitFor("• Kept — ")
	h.waitFor("Save Now (unsaved changes)")
	h.c.Click("disk/Kept/save")
	h.waitFor("Kept — Saving… 45%")
	if m := h.ui.menu(); m.Title != "Saving… 45%" {
		t.Errorf("title = %q", m.Title)
	}
	close(proceed)
	got := h.waitFor("Kept — 0 B of 1 GiB")
	if strings.Contains(got, "•") {
		t.Errorf("still marked unsaved:\n%s", got)
	}
}

// Benchmark This Disk (no "…": it asks nothing) shows its progress while it
// runs, then the table in a monospace window that offers the chart, and
// opens the chart when asked; without windows, the headline is a
// notification. Reclaim's failure is a notification.
func TestBenchmarkAndReclaimHooks(t *testing.T) {
	dlg := &fakeDialogs{results: make(chan string, 1), act: true}
	halfway, finish := make(chan struct{}), make(chan struct{})
	opened := make(chan string, 1)
	res := BenchmarkResult{Table: "Test  B  Home disk  RAM disk is\n", Headline: "B vs Home disk: faster", Chart: "/data/benchmarks/B.svg"}
	h := start(t, func(d *Deps) {
		d.Dialogs = dlg
		d.Open = func(path string) error { opened <- path; return nil }
		d.Benchmark = func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (BenchmarkResult, error) {
			progress(1, 2)
			close(halfway)
			<-finish
			return res, nil
		}
		d.Disks = &fakeDisks{eng: d.Engine, reclaim: func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (ramdisk.Size, error) {
			return 0, errors.New("disk is busy")
		}}
	})
	h.create("B", ramdisk.GiB)
	got := h.waitFor("  Benchmark This Disk\n")
	if strings.Contains(got, "  Reclaim") {
		t.Errorf("reclaim offered with nothing pinned:\n%s", got)
	}
	h.c.Click("disk/B/bench")
	<-halfway
	h.waitFor("  Benchmarking… 50% (off)\n")
	close(finish)
	select {
	case m := <-dlg.results:
		if want := "Benchmark of B: " + res.Table + "\nChart: /data/benchmarks/B.svg\n[Open Chart]"; m != want {
			t.Errorf("result window\n got %q\nwant %q", m, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no benchmark result shown")
	}
	select {
	case p := <-opened:
		if p != res.Chart {
			t.Errorf("opened %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Open Chart opened nothing")
	}
	h.waitFor("  Benchmark This Disk\n")

	// No chart saved: nothing to offer. No windows: the headline.
	for _, c := range []struct {
		dialogs bool
		want    string
	}{{true, "Benchmark of N: table\n[]"}, {false, "Benchmark of N: B vs Home disk: faster"}} {
		dlg := &fakeDialogs{results: make(chan string, 1)}
		h := start(t, func(d *Deps) {
			if c.dialogs {
				d.Dialogs = dlg
			}
			d.Benchmark = func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (BenchmarkResult, error) {
				return BenchmarkResult{Table: "table\n", Headline: "B vs Home disk: faster"}, nil
			}
		})
		h.create("N", ramdisk.GiB)
		h.waitFor("  Benchmark This Disk\n")
		h.c.Click("disk/N/bench")
		if c.dialogs {
			if m := <-dlg.results; m != c.want {
				t.Errorf("result window %q, want %q", m, c.want)
			}
		} else if n := h.note("Benchmark of N"); n != c.want {
			t.Errorf("notification %q, want %q", n, c.want)
		}
	}
}

func TestCustomDialogShowsPlanFirst(t *testing.T) {
	dlg := &fakeDialogs{checked: make(chan string, 4), form: NewDiskForm{Name: "Huge", Size: "15G", FS: ramdisk.TmpFS}}
	h := start(t, func(d *Deps) { d.Dialogs = dlg })
	h.waitFor("of 16 GiB memory") // the dialog plans against known memory
	h.c.Click("new/custom")
	if txt := <-dlg.checked; !strings.HasPrefix(txt, "This machine can't hold that disk") {
		t.Errorf("refusal text: %s", txt)
	}
	time.Sleep(50 * time.Millisecond)
	if vs, _ := h.mem.List(context.Background()); len(vs) != 0 {
		t.Fatalf("a refused plan made %+v", vs)
	}
	dlg.form = NewDiskForm{Name: "Work", Size: "512M", FS: ramdisk.TmpFS}
	h.c.Click("new/custom")
	if txt := <-dlg.checked; !strings.Contains(txt, "Create Work: 512 MiB tmpfs, grows as written?") {
		t.Errorf("plan text: %s", txt)
	}
	h.waitFor("Work — ")
}

func TestQuitEjectsWhenSettingsSaySo(t *testing.T) {
	dir := t.TempDir()
	st := settingsfile.Store{Path: filepath.Join(dir, "settings.plist")}
	s := ramdisk.DefaultSettings()
	s.EjectOnQuit = ramdisk.QuitEject
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	h := start(t, func(d *Deps) { d.Store = st })
	h.create("A", ramdisk.GiB)
	h.create("B", ramdisk.GiB)
	h.waitFor("B — ")
	time.Sleep(50 * time.Millisecond) // settings loaded
	h.c.Click("quit")
	select {
	case <-h.quit:
	case <-time.After(5 * time.Second):
		t.Fatal("did not quit")
	}
	if vs, _ := h.mem.List(context.Background()); len(vs) != 0 {
		t.Fatalf("quit left %+v", vs)
	}
}

func TestQuitAskLeaveMounted(t *testing.T) {
	dialogs := &fakeDialogs{quit: QuitLeaveMounted}
	h := start(t, func(d *Deps) { d.Dialogs = dialogs })
	h.create("A", ramdisk.GiB)
	h.waitFor("A — ")
	h.c.Click("quit")
	select {
	case <-h.quit:
	case <-time.After(5 * time.Second):
		t.Fatal("did not quit")
	}
	if vs, _ := h.mem.List(context.Background()); len(vs) != 1 {
		t.Fatalf("leave mounted ejected: %+v", vs)
	}
	if q := dialogs.asking; len(q.Lost)+len(q.Saved) != 1 {
		t.Errorf("the quit dialog was asked about %+v", q)
	}
}

// TestQuitText: the quit dialog names the disks an eject loses and those
// it saves first, and another RAMBar's, which stay.
func TestQuitText(t *testing.T) {
	for _, c := range []struct {
		q    QuitQuestion
		want string
	}{
		{QuitQuestion{Lost: []string{"Scratch"}}, "Eject the RAM disk before quitting?\n\nScratch's contents are lost when it is ejected.\n\nLeft mounted, they keep holding memory."},
		{QuitQuestion{Lost: []string{"A", "B"}}, "Eject the 2 RAM disks before quitting?\n\nTheir contents are lost when ejected: A, B."},
		{QuitQuestion{Saved: []string{"Work"}}, "Eject the RAM disk before quitting?\n\nSaved first, and restored when made again: Work."},
		{QuitQuestion{Lost: []string{"A", "B", "C"}, Saved: []string{"Work", "Site"}, Others: []string{"Root's"}},
			"Eject the 5 RAM disks before quitting?\n\nLost when ejected: A, B, C.\n\nSaved first, and restored when made again: Work, Site.\n\nAnother RAMBar's, left mounted either way: Root's."},
	} {
		if got := QuitText(i18n.English(), c.q); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v:\n%s\nwant it to start\n%s", c.q, got, c.want)
		}
	}
}

func TestCostlyUsagePolledLessOften(t *testing.T) {
	mem := ramdisktest.NewMem(t.TempDir(), gb16)
	caps := mem.Caps()
	caps.HeldIsCostly = true
	eng := &counting{Engine: mem, caps: caps}
	h := start(t, func(d *Deps) {
		d.Engine = eng
		d.Refresh = 10 * time.Millisecond
		d.UsageEvery = time.Hour
	})
	h.mem = mem
	h.create("C", ramdisk.GiB)
	h.waitFor("C — 0 B of 1 GiB") // a new disk is measured at once
	base := eng.usages.Load()
	l0 := eng.lists.Load()
	for eng.lists.Load() < l0+10 {
		time.Sleep(5 * time.Millisecond)
	}
	if got := eng.usages.Load(); got != base {
		t.Errorf("Usage called %d more times over 10 lists with HeldIsCostly", got-base)
	}
}

func TestLaunchAtLoginToggle(t *testing.T) {
	var on atomic.Bool
	h := start(t, func(d *Deps) {
		d.LaunchAtLogin = &LoginItem{
			Get: func() (bool, error) { return on.Load(), nil },
			Set: func(v bool) error { on.Store(v); return nil },
		}
	})
	h.waitFor("[ ] Launch at Login")
	h.c.Click("login")
	h.waitFor("[x] Launch at Login")
	if !on.Load() {
		t.Error("Set(true) not called")
	}
}

func TestPresetsMountWithProgress(t *testing.T) {
	dir := t.TempDir()
	st := settingsfile.Store{Path: filepath.Join(dir, "settings.plist")}
	s := ramdisk.DefaultSettings()
	s.Presets = []ramdisk.Preset{{Name: "Kept", Size: "1G", Contents: ramdisk.Keep}, {Name: "Plain", Size: "512M"}}
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	proceed := make(chan struct{})
	var mem *ramdisktest.Mem
	h := start(t, func(d *Deps) {
		d.Store = st
		mem = d.Engine.(*ramdisktest.Mem)
		d.Disks = &fakeDisks{eng: d.Engine, mount: func(ctx context.Context, p ramdisk.Preset, progress ProgressFunc) (ramdisk.Volume, error) {
			if p.Name != "Kept" {
				return ramdisk.Volume{}, errors.New("only Kept goes through the hook in this test")
			}
			progress(1, 4)
			<-proceed
			return mem.Create(ctx, ramdisk.Plan{Name: p.Name, Size: ramdisk.GiB, FS: ramdisk.TmpFS, Allocation: ramdisk.AllocOnWrite})
		}}
	})
	h.waitFor("Presets\n  Kept (1G)\n  Plain (512M)\n")
	h.c.Click("preset/Kept")
	h.waitFor("Creating Kept… 25% (off)")
	close(proceed)
	got := h.waitFor("Kept — 0 B of 1 GiB")
	if !strings.Contains(got, "Kept (1G), mounted (off)") {
		t.Errorf("preset not marked mounted:\n%s", got)
	}
}

// The Settings' quitting choice is saved, and About shows the version and
// where to get help.
func TestSettingsQuitChoiceAndAbout(t *testing.T) {
	dlg := &fakeDialogs{messages: make(chan string, 1)}
	h := start(t, func(d *Deps) { d.Dialogs, d.Version = dlg, "1.4.0" })
	h.waitFor("  [x] Ask Whether to Eject Disks")
	h.c.Click("quit/leave")
	h.waitFor("  [ ] Ask Whether to Eject Disks\n  [ ] Eject Disks (kept ones are saved first)\n  [x] Leave Disks Mounted")
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := h.store.Load()
		if err == nil && s.EjectOnQuit == ramdisk.QuitLeave {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("settings hold %+v, %v", s, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	h.c.Click("about")
	select {
	case m := <-dlg.messages:
		if !strings.HasPrefix(m, "About RAMBar: RAMBar 1.4.0\n") {
			t.Errorf("about says %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("About showed nothing")
	}
}

// TestInPlaceOnTheEntry: a disk mounted over its folder says "In place at
// FOLDER" in its submenu, and no longer once it is not.
func TestInPlaceOnTheEntry(t *testing.T) {
	var folder atomic.Value
	folder.Store("/home/me/site")
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine, inPlace: func(v ramdisk.Volume) string { return folder.Load().(string) }}
	})
	h.create("Site", ramdisk.GiB)
	h.waitFor("  In place at /home/me/site (off)\n")
	folder.Store("")
	h.waitGone("In place")
}

// TestConflictsOnTheEntryAndStatusLine: the conflicts of a disk's last
// write-back appear on its entry, open the folder when clicked and go when
// a later save has none; the app's status line shows and goes.
func TestConflictsOnTheEntryAndStatusLine(t *testing.T) {
	var n atomic.Int64
	n.Store(2)
	opened := make(chan string, 1)
	status := &StatusLine{}
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine, conflicts: func(v ramdisk.Volume) (int, string) { return int(n.Load()), "/home/me/site" }}
		d.Open = func(path string) error { opened <- path; return nil }
		d.Status = status
	})
	h.create("Site", ramdisk.GiB)
	h.waitFor("  ⚠ 2 conflicts in /home/me/site\n")
	h.c.Click("disk/Site/conflicts")
	select {
	case p := <-opened:
		if p != "/home/me/site" {
			t.Errorf("opened %q", p)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the folder was not opened")
	}
	n.Store(0)
	h.waitGone("conflict")

	status.Set("Saving before logout…")
	status.Progress(9, 20)
	h.waitFor("Saving before logout… 45% (off)\n")
	if m := h.ui.menu(); m.Title != "Saving before logout… 45%" {
		t.Errorf("title = %q", m.Title)
	}
	status.Set("")
	h.waitGone("Saving before logout")
}

// TestEjectAllLeavesOtherRAMBarsDisks: a disk another RAMBar made is
// marked in the menu, offers only ejecting it without saving, and Eject
// All (and eject at quit) leaves it mounted while ejecting this RAMBar's.
func TestEjectAllLeavesOtherRAMBarsDisks(t *testing.T) {
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine, whose: func(v ramdisk.Volume) string {
			if v.Name == "Theirs" {
				return "is another RAMBar's disk: it was made with the data folder /root/.local/share/rambar of user root (uid 0)"
			}
			return ""
		}}
	})
	h.create("Mine", ramdisk.GiB)
	h.create("Theirs", ramdisk.GiB)
	menu := h.waitFor("Theirs (not made here) — ")
	if strings.Contains(menu, "Mine (not made here)") || !strings.Contains(menu, "Not made by this RAMBar: Eject All leaves it alone") ||
		!strings.Contains(menu, "Eject Without Saving (another RAMBar's disk)") {
		t.Errorf("menu:\n%s", menu)
	}
	h.c.Click("ejectall")
	h.waitGone("Mine — ")
	time.Sleep(100 * time.Millisecond) // a second refresh: nothing else goes
	vs, _ := h.mem.List(context.Background())
	if len(vs) != 1 || vs[0].Name != "Theirs" {
		t.Fatalf("after Eject All the engine has %+v, want Theirs alone", vs)
	}
	h.c.Click("disk/Theirs/eject")
	h.waitGone("Theirs")
}

// A plain disk's submenu offers Keep Contents and Mirror to a Folder…; a
// kept one neither. Keep Contents keeps it and Save Now takes their place;
// Mirror to a Folder… asks for the folder (cancel: nothing happens) and a
// refusal is a notification, the disk still plain.
func TestKeepAndMirrorTo(t *testing.T) {
	var mu sync.Mutex
	kept := map[string]string{}
	sc := &script{t: t, steps: []step{{"folder", "An empty folder to mirror M to|", cancel}, {"folder", "An empty folder to mirror M to|", "/home/me/full"},
		{"folder", "An empty folder to mirror M to|", "/home/me/site"}}}
	h := start(t, func(d *Deps) {
		d.EditPresets = sc
		d.Disks = &fakeDisks{eng: d.Engine,
			plain: func(v ramdisk.Volume) bool { mu.Lock(); defer mu.Unlock(); _, ok := kept[v.Name]; return !ok },
			keep: func(ctx context.Context, v ramdisk.Volume, folder string) error {
				if folder == "/home/me/full" {
					return errors.New("mirror folder /home/me/full: it is not empty")
				}
				mu.Lock()
				defer mu.Unlock()
				kept[v.Name] = folder
				return nil
			}}
	})
	h.create("K", ramdisk.GiB)
	h.create("M", ramdisk.GiB)
	got := h.waitFor("  Mirror to a Folder…\n")
	if strings.Contains(got, "Save Now") {
		t.Errorf("Save Now offered on plain disks:\n%s", got)
	}
	h.c.Click("disk/K/keep")
	h.note("Keeping K")
	h.wait("K kept", func(m string) bool {
		from, to := strings.Index(m, "K — "), strings.Index(m, "M — ")
		if from < 0 || to < from {
			return false // the menu is being rebuilt: K's or M's item not there yet
		}
		k := m[from:to]
		return strings.Contains(k, "Save Now") && !strings.Contains(k, "Keep Contents")
	})
	h.c.Click("disk/M/mirrorto") // cancelled
	h.c.Click("disk/M/mirrorto")
	h.note("Keeping of M failed: mirror folder /home/me/full: it is not empty")
	h.c.Click("disk/M/mirrorto")
	h.note("M mirrors /home/me/site")
	mu.Lock()
	defer mu.Unlock()
	if kept["K"] != "" || kept["M"] != "/home/me/site" {
		t.Errorf("kept %v", kept)
	}
}

// A Mirror disk whose folder keeps changes the disk lacks says so in its
// submenu and offers Take Folder's Changes, with its progress while it
// runs; once done it is gone, with a notification. A plain disk, and a
// Mirror disk whose folder keeps nothing, offer neither; a failure is a
// notification and the item stays.
func TestTakeFolderChanges(t *testing.T) {
	var kept atomic.Int64
	kept.Store(3)
	proceed := make(chan struct{})
	fail := make(chan bool, 2)
	h := start(t, func(d *Deps) {
		d.Disks = &fakeDisks{eng: d.Engine,
			plain: func(v ramdisk.Volume) bool { return v.Name == "Plain" },
			keptIn: func(v ramdisk.Volume) int {
				if v.Name == "Site" {
					return int(kept.Load())
				}
				return 0
			},
			refresh: func(ctx context.Context, v ramdisk.Volume, progress ProgressFunc) (int, error) {
				if <-fail {
					return 0, errors.New("refresh Site: the save before it failed")
				}
				progress(40, 100)
				<-proceed
				kept.Store(0)
				return 3, nil
			}}
	})
	h.create("Plain", ramdisk.GiB)
	h.create("Calm", ramdisk.GiB)
	h.create("Site", ramdisk.GiB)
	got := h.waitFor("Folder: 3 changes kept in the folder, not on the disk")
	if strings.Count(got, "Take Folder's Changes") != 1 {
		t.Fatalf("Take Folder's Changes is not offered once (only on Site):\n%s", got)
	}
	fail <- true
	h.c.Click("disk/Site/refresh")
	h.note("Taking the folder's changes of Site failed: refresh Site: the save before it failed")
	h.waitFor("Take Folder's Changes")
	fail <- false
	h.c.Click("disk/Site/refresh")
	h.waitFor("Taking Folder's Changes… 40%")
	close(proceed)
	h.note("Site now has 3 changes from its folder")
	h.wait("Site's folder keeps nothing", func(m string) bool {
		return !strings.Contains(m, "kept in the folder") && !strings.Contains(m, "Take Folder's Changes") && !strings.Contains(m, "Taking")
	})
}
