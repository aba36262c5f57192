package login

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"howett.net/plist"

	"rambar/darwin/cocoa"
	"rambar/ramdisk"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestNew(t *testing.T) {
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		exe     string
		wantDir string // "" when an error is wanted
		wantErr string
	}{
		{"mac", "darwin", map[string]string{"HOME": "/Users/ada"}, "/Applications/RAMBar.app/Contents/MacOS/rambar", "/Users/ada/Library/LaunchAgents", ""},
		{"mac no home", "darwin", nil, "/Applications/RAMBar.app/Contents/MacOS/rambar", "", "HOME is not set"},
		{"translocated", "darwin", map[string]string{"HOME": "/Users/ada"}, "/private/var/folders/x/AppTranslocation/1234/d/RAMBar.app/Contents/MacOS/rambar", "", "move RAMBar.app to Applications"},
		{"still on the dmg", "darwin", map[string]string{"HOME": "/Users/ada"}, "/Volumes/RAMBar/RAMBar.app/Contents/MacOS/rambar", "", "move RAMBar.app to Applications"},
		{"still on the dmg, mounted twice", "darwin", map[string]string{"HOME": "/Users/ada"}, "/Volumes/RAMBar 1/RAMBar.app/Contents/MacOS/rambar", "", "move RAMBar.app to Applications"},
		{"Applications on an external volume", "darwin", map[string]string{"HOME": "/Users/ada"}, "/Volumes/Ext SSD/Applications/RAMBar.app/Contents/MacOS/rambar", "/Users/ada/Library/LaunchAgents", ""},
		{"a folder on an external volume", "darwin", map[string]string{"HOME": "/Users/ada"}, "/Volumes/Ext/Tools/RAMBar.app/Contents/MacOS/rambar", "/Users/ada/Library/LaunchAgents", ""},
		{"relative", "linux", map[string]string{"HOME": "/home/ada"}, "bin/rambar", "", "not absolute"},
		{"xdg", "linux", map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "/cfg"}, "/usr/bin/rambar", "/cfg/autostart", ""},
		{"xdg relative is ignored", "linux", map[string]string{"HOME": "/home/ada", "XDG_CONFIG_HOME": "cfg"}, "/usr/bin/rambar", "/home/ada/.config/autostart", ""},
		{"linux nothing set", "linux", nil, "/usr/bin/rambar", "", "neither HOME nor XDG_CONFIG_HOME"},
		{"windows", "windows", map[string]string{"HOME": "/x"}, "/x/rambar", "", "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			it, err := New(tt.goos, env(tt.env), tt.exe, 501, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, tt.wantErr)
				}
				if tt.goos == "windows" && !errors.Is(err, ramdisk.ErrUnsupported) {
					t.Errorf("not ErrUnsupported: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if it.Dir != tt.wantDir {
				t.Errorf("Dir = %q, want %q", it.Dir, tt.wantDir)
			}
		})
	}
}

func TestSelfIsAgent(t *testing.T) {
	it, err := New("darwin", env(map[string]string{"HOME": "/Users/ada", "XPC_SERVICE_NAME": Label}), "/Applications/RAMBar.app/Contents/MacOS/rambar", 501, nil)
	if err != nil || !it.SelfIsAgent {
		t.Errorf("launched by launchd: SelfIsAgent = %v, %v", it != nil && it.SelfIsAgent, err)
	}
	it, _ = New("darwin", env(map[string]string{"HOME": "/Users/ada", "XPC_SERVICE_NAME": "0"}), "/Applications/RAMBar.app/Contents/MacOS/rambar", 501, nil)
	if it.SelfIsAgent {
		t.Errorf("launched from Finder: SelfIsAgent = true")
	}
}

func TestQuoteExecArg(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/bin/rambar", "/usr/bin/rambar"},
		{"/opt/RAM Bar/rambar", `"/opt/RAM Bar/rambar"`},
		{"/opt/100%/rambar", "/opt/100%%/rambar"},
		{"/opt/100% x/rambar", `"/opt/100%% x/rambar"`},
		{`/opt/a"b/rambar`, `"/opt/a\"b/rambar"`},
		{"/opt/a`b/rambar", "\"/opt/a\\`b/rambar\""},
		{"/opt/a$b/rambar", `"/opt/a\$b/rambar"`},
		{`/opt/a\b/rambar`, `"/opt/a\\b/rambar"`},
		{"/opt/a'b/rambar", `"/opt/a'b/rambar"`},
		{"/opt/a;b/rambar", `"/opt/a;b/rambar"`},
		{"/opt/a~b/rambar", `"/opt/a~b/rambar"`},
		{"/opt/ä/rambar", "/opt/ä/rambar"},
		{"", `""`},
	}
	for _, tt := range tests {
		if got := quoteExecArg(tt.in); got != tt.want {
			t.Errorf("quoteExecArg(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The string escapes come on top: a literal backslash in a quoted
	// argument is four backslashes in the file (the spec's own example).
	if got := escapeString(quoteExecArg(`a\b c`)); got != `"a\\\\b c"` {
		t.Errorf("escaped = %s", got)
	}
	if got := escapeString(quoteExecArg("a\nb")); got != `"a\nb"` {
		t.Errorf("newline escaped = %s", got)
	}
}

// TestLinuxAutostart writes, reads and removes a real autostart entry.
func TestLinuxAutostart(t *testing.T) {
	cfg := t.TempDir()
	exe := "/opt/RAM Bar/bin/rambar"
	it, err := New("linux", env(map[string]string{"XDG_CONFIG_HOME": cfg, "HOME": "/nonexistent"}), exe, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := it.Status(ctx)
	if err != nil || st.Enabled || st.Path != filepath.Join(cfg, "autostart", "rambar.desktop") {
		t.Fatalf("before: %+v, %v", st, err)
	}
	for i := 0; i < 2; i++ { // the second time is a no-op
		if err := it.Set(ctx, true); err != nil {
			t.Fatalf("Set(true) #%d: %v", i+1, err)
		}
	}
	want, err := os.ReadFile(filepath.Join("testdata", "rambar.desktop"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(it.Path())
	if string(got) != string(want) {
		t.Errorf("autostart file:\n%s\nwant (testdata/rambar.desktop):\n%s", got, want)
	}
	if fi, _ := os.Stat(it.Path()); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if st, _ := it.Status(ctx); !st.Enabled || st.Program != exe || st.Stale {
		t.Errorf("after on: %+v", st)
	}
	// The desktop's own switch (GNOME Tweaks, Xfce's session settings) wins.
	os.WriteFile(it.Path(), append(got, "Hidden=true\n"...), 0o644)
	if on, _ := it.Enabled(ctx); on {
		t.Errorf("Hidden=true entry reported enabled")
	}
	// Another copy of RAMBar wrote it: stale until Set(true) rewrites it.
	other, _ := New("linux", env(map[string]string{"XDG_CONFIG_HOME": cfg}), "/usr/local/bin/rambar", 0, nil)
	other.Set(ctx, true)
	if st, _ := it.Status(ctx); !st.Enabled || !st.Stale || st.Program != "/usr/local/bin/rambar" {
		t.Errorf("written by another copy: %+v", st)
	}
	for i := 0; i < 2; i++ {
		if err := it.Set(ctx, false); err != nil {
			t.Fatalf("Set(false) #%d: %v", i+1, err)
		}
	}
	if _, err := os.Stat(it.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file still there: %v", err)
	}
	if on, err := it.Enabled(ctx); on || err != nil {
		t.Errorf("after off: %v, %v", on, err)
	}
}

func TestAgentPlist(t *testing.T) {
	exe := "/Applications/RAM Bar.app/Contents/MacOS/rambar"
	data, err := agentPlist(exe)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "app.rambar.RAMBar.plist"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want) {
		t.Errorf("agent plist:\n%s\nwant (testdata/app.rambar.RAMBar.plist):\n%s", data, want)
	}
	var m map[string]any
	if _, err := plist.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if m["Label"] != Label || m["RunAtLoad"] != true || m["ProcessType"] != "Interactive" || m["LimitLoadToSessionType"] != "Aqua" {
		t.Errorf("keys: %v", m)
	}
	// launchd's SIGKILL must not cut the session-end save short.
	if n, ok := m["ExitTimeOut"].(uint64); !ok || time.Duration(n)*time.Second < cocoa.EndBound+15*time.Second {
		t.Errorf("ExitTimeOut %v (%T): want at least %v", m["ExitTimeOut"], m["ExitTimeOut"], cocoa.EndBound+15*time.Second)
	}
	if args, _ := m["ProgramArguments"].([]any); len(args) != 1 || args[0] != exe {
		t.Errorf("ProgramArguments = %v", m["ProgramArguments"])
	}
}
