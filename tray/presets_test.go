package tray

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"rambar/settingsfile"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"rambar/ramdisk"
)

// step is one scripted dialog: its kind (choose, ask, folder, confirm,
// problem), a substring the window must show ("title|text|default", or the
// error text for a problem), and the answer. The answer cancel cancels.
type step struct{ kind, want, answer string }

const cancel = "<cancel>"

// script is a PresetDialogs that answers in order and fails the test on any
// window it did not expect.
type script struct {
	t     *testing.T
	mu    sync.Mutex
	steps []step
	// before, when set, runs before each answer.
	before func(kind string)
}

func (s *script) next(kind, shown string) (string, error) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.steps) == 0 {
		s.t.Errorf("unexpected %s window: %s", kind, shown)
		return "", ramdisk.ErrCancelled
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	if s.before != nil {
		s.before(kind)
	}
	if st.kind != kind || !strings.Contains(shown, st.want) {
		s.t.Errorf("got %s window %q, want %s window showing %q", kind, shown, st.kind, st.want)
		return "", ramdisk.ErrCancelled
	}
	if st.answer == cancel {
		return "", ramdisk.ErrCancelled
	}
	return st.answer, nil
}

func (s *script) Choose(ctx context.Context, title, text string, items []string, def string) (string, error) {
	s.t.Helper()
	a, err := s.next("choose", title+"|"+text+"|"+def)
	if err == nil && indexOf(items, a) < 0 {
		s.t.Errorf("answer %q is not among %q", a, items)
	}
	return a, err
}

func (s *script) Ask(ctx context.Context, title, text, def string) (string, error) {
	return s.next("ask", title+"|"+text+"|"+def)
}

func (s *script) Folder(ctx context.Context, title, def string) (string, error) {
	return s.next("folder", title+"|"+def)
}

func (s *script) Confirm(ctx context.Context, title, text, ok string) (bool, error) {
	a, err := s.next("confirm", title+"|"+text)
	return a == "yes", err
}

func (s *script) Problem(ctx context.Context, title, text string) error {
	_, err := s.next("problem", text)
	return err
}

func (s *script) left() []step { s.mu.Lock(); defer s.mu.Unlock(); return s.steps }

var (
	scratchPreset = ramdisk.Preset{Name: "Scratch", Size: "4G", FS: ramdisk.TmpFS}
	cachePreset   = ramdisk.Preset{Name: "Cache", Size: "25%", FS: ramdisk.ZRAM, Contents: ramdisk.Keep, SaveEvery: 600}
	linuxFS       = []ramdisk.FileSystem{ramdisk.TmpFS, ramdisk.ZRAM}
)

// form is the scripted answers to the whole form, for a preset that
// discards its contents.
func form(name, size, fs string) []step {
	return []step{
		{"ask", "Name", name}, {"ask", "Size", size}, {"choose", "File system", fs},
		{"choose", "Show", choiceShown}, {"choose", "When", choiceMenuOnly}, {"choose", "contents", choiceDiscard},
	}
}

func steps(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func pick(answer string) []step { return []step{{"choose", "", answer}} }

func TestPresetEditor(t *testing.T) {
	start := []ramdisk.Preset{scratchPreset, cachePreset}
	scratchLine, cacheLine := presetLine(nil, scratchPreset), presetLine(nil, cachePreset)
	if cacheLine != "Cache: 25% zram (compressed), kept, saved every 10 min" {
		t.Fatalf("PresetLine = %q", cacheLine)
	}
	build := ramdisk.Preset{Name: "Build", Size: "8G", FS: ramdisk.ZRAM}
	tests := []struct {
		name   string
		script []step
		want   []ramdisk.Preset // nil: the file is unchanged
		mount  string
	}{
		{
			name:   "add",
			script: steps(pick(choiceAdd), form("Build", "8G", "zram (compressed)")),
			want:   []ramdisk.Preset{scratchPreset, cachePreset, build},
		},
		{
			name: "add a mirror, hidden, at login, saved every 5 minutes",
			script: steps(pick(choiceAdd), []step{
				{"ask", "disk:|", " Src "}, {"ask", "%):|4G", "2G"}, {"choose", "File system:|tmpfs", "tmpfs"},
				{"choose", "Show", choiceHidden}, {"choose", "When", choiceAutoMount}, {"choose", "contents", choiceMirror},
				{"folder", "Folder to mirror on Src", "/home/me/src"}, {"choose", "every:|Off", "5 min"}, {"choose", "snapshots:|Default", "3"},
			}),
			want: []ramdisk.Preset{scratchPreset, cachePreset, {Name: "Src", Size: "2G", FS: ramdisk.TmpFS, Hidden: true, AutoMount: true,
				Contents: ramdisk.Mirror, MirrorPath: "/home/me/src", SaveEvery: 300, Snapshots: 3}},
		},
		{
			name: "bad sizes and names are shown and asked again",
			script: steps(pick(choiceAdd), []step{
				{"ask", "Name", "a/b"}, {"problem", "/", ""}, {"ask", "disk:|a/b", "Build"},
				{"ask", "Size", "0"}, {"problem", `"0"`, ""}, {"ask", "Size", "-1G"}, {"problem", "positive", ""},
				{"ask", "Size", "3.5Q"}, {"problem", "unknown unit", ""}, {"ask", "%):|3.5Q", "8G"},
			}, form("", "", "zram (compressed)")[2:]),
			want: []ramdisk.Preset{scratchPreset, cachePreset, build},
		},
		{
			name: "a name taken in another case is refused and the form asked again",
			script: steps(pick(choiceAdd), form("scratch", "8G", "zram (compressed)"),
				[]step{{"problem", "exists", ""}}, form("Build", "8G", "zram (compressed)")),
			want: []ramdisk.Preset{scratchPreset, cachePreset, {Name: "Build", Size: "8G", FS: ramdisk.ZRAM}},
		},
		{
			name: "edit starts from the preset and keeps its place",
			script: steps(pick(cacheLine), pick(choiceEdit), []step{
				{"ask", "Edit Cache|Name of the disk:|Cache", "Cache"}, {"ask", "%):|25%", "50%"}, {"choose", "File system:|zram", "zram (compressed)"},
				{"choose", "disk?|" + choiceShown, choiceShown}, {"choose", "it:|" + choiceMenuOnly, choiceAutoMount},
				{"choose", "contents:|" + choiceKeep, choiceKeep}, {"choose", "every:|10 min", "1 h"}, {"choose", "snapshots:|Default", "Default"},
			}),
			want: []ramdisk.Preset{scratchPreset, {Name: "Cache", Size: "50%", FS: ramdisk.ZRAM, AutoMount: true, Contents: ramdisk.Keep, SaveEvery: 3600}},
		},
		{
			name:   "rename",
			script: steps(pick(scratchLine), pick(choiceEdit), form("Work", "4G", "tmpfs")),
			want:   []ramdisk.Preset{{Name: "Work", Size: "4G", FS: ramdisk.TmpFS}, cachePreset},
		},
		{
			name:   "edit to discard clears the saving options",
			script: steps(pick(cacheLine), pick(choiceEdit), form("Cache", "25%", "zram (compressed)")),
			want:   []ramdisk.Preset{scratchPreset, {Name: "Cache", Size: "25%", FS: ramdisk.ZRAM}},
		},
		{
			name:   "remove",
			script: steps(pick(scratchLine), pick(choiceRemove), []step{{"confirm", "Remove the preset Scratch?", "yes"}}),
			want:   []ramdisk.Preset{cachePreset},
		},
		{
			name:   "remove declined",
			script: steps(pick(scratchLine), pick(choiceRemove), []step{{"confirm", "Remove", "no"}}),
		},
		{
			name:   "mount now",
			script: steps(pick(scratchLine), pick(choiceMount)),
			mount:  "Scratch",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, st, before := newEditor(t, start, tt.script)
			mount, err := e.run(context.Background())
			if err != nil || mount != tt.mount {
				t.Fatalf("run = %q, %v; want %q", mount, err, tt.mount)
			}
			if left := e.dlg.(*script).left(); len(left) > 0 {
				t.Errorf("windows never shown: %v", left)
			}
			if tt.want == nil {
				unchanged(t, st, before)
				return
			}
			s, err := st.Load()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.Presets, tt.want) {
				t.Errorf("presets\n got %+v\nwant %+v", s.Presets, tt.want)
			}
		})
	}
}

// TestPresetEditorCancelChangesNothing cancels every window of each flow in
// turn.
func TestPresetEditorCancelChangesNothing(t *testing.T) {
	start := []ramdisk.Preset{scratchPreset, cachePreset}
	flows := map[string][]step{
		"add": steps(pick(choiceAdd), []step{
			{"ask", "Name", "Src"}, {"ask", "Size", "2G"}, {"choose", "File system", "tmpfs"},
			{"choose", "Show", choiceHidden}, {"choose", "When", choiceAutoMount}, {"choose", "contents", choiceMirror},
			{"folder", "", "/src"}, {"choose", "every", "5 min"}, {"choose", "snapshots", "3"},
		}),
		"edit":   steps(pick(presetLine(nil, cachePreset)), pick(choiceEdit), form("Other", "1G", "tmpfs")),
		"remove": steps(pick(presetLine(nil, scratchPreset)), pick(choiceRemove), []step{{"confirm", "", "yes"}}),
	}
	for name, flow := range flows {
		for k := range flow {
			t.Run(fmt.Sprintf("%s/at %d %s", name, k, flow[k].kind), func(t *testing.T) {
				sc := append(append([]step{}, flow[:k]...), step{flow[k].kind, "", cancel})
				e, st, before := newEditor(t, start, sc)
				mount, err := e.run(context.Background())
				if mount != "" || !errors.Is(err, ramdisk.ErrCancelled) && !(err == nil && flow[k].kind == "confirm") {
					t.Errorf("run = %q, %v; want a cancel", mount, err)
				}
				unchanged(t, st, before)
			})
		}
	}
}

func TestPresetEditorLeavesBadFileAlone(t *testing.T) {
	for name, data := range map[string]string{
		"corrupt": "not a plist {{{",
		"newer":   `<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>Version</key><integer>99</integer></dict></plist>`,
	} {
		t.Run(name, func(t *testing.T) {
			st := settingsfile.Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
			if err := os.WriteFile(st.Path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			e := presetEditor{store: st, dlg: &script{t: t}, fss: linuxFS, physical: 16 * ramdisk.GiB}
			_, err := e.run(context.Background())
			if !errors.Is(err, ramdisk.ErrSettingsCorrupt) && !errors.Is(err, ramdisk.ErrSettingsNewer) {
				t.Errorf("run = %v; want the settings error", err)
			}
			if err := e.saveAs(context.Background(), ramdisk.Volume{Name: "X", Size: ramdisk.GiB}); err == nil {
				t.Error("saveAs on a bad file succeeded")
			}
			unchanged(t, st, []byte(data))
		})
	}
	// The file goes bad while the form is open: the answers are not saved.
	e, st, _ := newEditor(t, nil, steps(pick(choiceAdd), form("Build", "8G", "tmpfs")))
	e.dlg.(*script).before = func(kind string) {
		if kind == "ask" {
			if err := os.WriteFile(st.Path, []byte("garbage"), 0o600); err != nil {
				t.Error(err)
			}
		}
	}
	if _, err := e.run(context.Background()); !errors.Is(err, ramdisk.ErrSettingsCorrupt) {
		t.Errorf("run = %v; want the settings error", err)
	}
	unchanged(t, st, []byte("garbage"))
}

func TestSaveAsPresetPrefillsFromTheDisk(t *testing.T) {
	v := ramdisk.Volume{Name: "Scratch", Size: 1536 * ramdisk.MiB, FS: ramdisk.ZRAM}
	e, st, _ := newEditor(t, []ramdisk.Preset{scratchPreset}, steps([]step{
		{"ask", "Save Scratch as Preset|Name of the disk:|Scratch-2", "Scratch 2"}, {"ask", "%):|1.5 GiB", "1.5 GiB"},
		{"choose", "File system:|zram", "zram (compressed)"},
	}, form("", "", "")[3:]))
	if err := e.saveAs(context.Background(), v); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Load()
	want := []ramdisk.Preset{scratchPreset, {Name: "Scratch 2", Size: "1.5 GiB", FS: ramdisk.ZRAM}}
	if !reflect.DeepEqual(s.Presets, want) {
		t.Errorf("presets %+v, want %+v", s.Presets, want)
	}
}

func newEditor(t *testing.T, presets []ramdisk.Preset, sc []step) (presetEditor, settingsfile.Store, []byte) {
	t.Helper()
	st := settingsfile.Store{Path: filepath.Join(t.TempDir(), "settings.plist")}
	s := ramdisk.DefaultSettings()
	s.Presets = append(s.Presets, presets...)
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	return presetEditor{store: st, dlg: &script{t: t, steps: sc}, fss: linuxFS, physical: 16 * ramdisk.GiB}, st, before
}

func unchanged(t *testing.T, st settingsfile.Store, before []byte) {
	t.Helper()
	after, err := os.ReadFile(st.Path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(after, before) {
		t.Errorf("settings file changed:\n%s", after)
	}
}

// TestEditPresetsFromTheMenu drives the controller: "Edit Presets…" adds a
// preset that the menu shows at once, "Mount Now" mounts it, and "Save as
// Preset…" on the disk adds another.
// clickDialog clicks key until its dialog starts (the script's first step
// is taken): a click while the previous flow is still closing its dialog is
// ignored by design, as a real menu ignores it while a window is open.
func clickDialog(t *testing.T, h *harness, sc *script, key string) {
	t.Helper()
	n := len(sc.left())
	deadline := time.Now().Add(5 * time.Second)
	for len(sc.left()) == n {
		if time.Now().After(deadline) {
			t.Fatalf("clicking %s never opened its dialog", key)
		}
		h.c.Click(key)
		for wait := time.Now().Add(200 * time.Millisecond); len(sc.left()) == n && time.Now().Before(wait); {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func TestEditPresetsFromTheMenu(t *testing.T) {
	sc := &script{t: t}
	h := start(t, func(d *Deps) { d.EditPresets = sc })
	h.waitFor("Edit Presets…")
	sc.mu.Lock()
	sc.steps = steps(pick(choiceAdd), form("Build", "1G", "tmpfs"))
	sc.mu.Unlock()
	clickDialog(t, h, sc, "preset/edit")
	h.waitFor("Build (1G)")

	sc.mu.Lock()
	sc.steps = steps(pick("Build: 1G tmpfs"), pick(choiceMount))
	sc.mu.Unlock()
	clickDialog(t, h, sc, "preset/edit")
	h.waitFor("Build (1G), mounted")
	got := h.waitFor("Save as Preset…")
	if !strings.Contains(got, "Build — ") {
		t.Fatalf("menu:\n%s", got)
	}

	sc.mu.Lock()
	sc.steps = steps([]step{{"ask", "disk:|Build-2", "Fast"}, {"ask", "%):|1 GiB", "1G"}, {"choose", "File system:|tmpfs", "tmpfs"}}, form("", "", "")[3:])
	sc.mu.Unlock()
	clickDialog(t, h, sc, "disk/Build/preset")
	h.waitFor("Fast (1G)")
	s, err := h.store.Load()
	if err != nil || len(s.Presets) != 2 || s.Presets[1].Name != "Fast" {
		t.Fatalf("saved presets %+v, %v", s.Presets, err)
	}
	if left := sc.left(); len(left) > 0 {
		t.Errorf("windows never shown: %v", left)
	}
}

// TestEditPresetsCorruptFileShown: the controller shows why the presets
// can't be edited, and the file stays as it was.
func TestEditPresetsCorruptFileShown(t *testing.T) {
	sc := &script{t: t, steps: []step{{"problem", "settings file is corrupt", ""}}}
	h := start(t, func(d *Deps) { d.EditPresets = sc })
	h.waitFor("Edit Presets…")
	if err := os.WriteFile(h.store.Path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.c.Click("preset/edit")
	deadline := time.Now().Add(5 * time.Second)
	for len(sc.left()) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the error was never shown")
		}
		time.Sleep(5 * time.Millisecond)
	}
	unchanged(t, h.store, []byte("garbage"))
}
