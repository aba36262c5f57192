package cocoa

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Every selector RAMBar answers is well formed and takes as many arguments
// as the table says (one object for the observers, targets and the
// queue; three for the notification delegate's).
func TestOwnSelectors(t *testing.T) {
	for sel, args := range ownMethods {
		if got := arity(sel); got != args {
			t.Errorf("%s: %d colons, table says %d arguments", sel, got, args)
		}
		if !strings.HasSuffix(sel, ":") || strings.ContainsAny(sel, " \t") {
			t.Errorf("%q is not a well-formed one-argument selector", sel)
		}
	}
	for _, c := range []struct {
		sel  string
		want int
	}{
		{"addObserver:selector:name:object:", 4},
		{"performSelectorOnMainThread:withObject:waitUntilDone:", 3},
		{"requestAuthorizationWithOptions:completionHandler:", 2},
		{"UTF8String", 0},
	} {
		if got := arity(c.sel); got != c.want {
			t.Errorf("arity(%s) = %d, want %d", c.sel, got, c.want)
		}
	}
}

// The method added to the app delegate returns an NSUInteger and takes
// self, _cmd and one object: its type encoding says exactly that.
func TestTerminateEncoding(t *testing.T) {
	if terminateEncoding != "Q@:@" {
		t.Errorf("terminateEncoding = %q", terminateEncoding)
	}
	if args := strings.Count(terminateEncoding[1:], "@") - 1; args != arity("applicationShouldTerminate:") {
		t.Errorf("encoding %q has %d object arguments, the selector %d", terminateEncoding, args, arity("applicationShouldTerminate:"))
	}
	if terminateCancel != 0 || terminateNow != 1 || terminateLater != 2 {
		t.Error("NSApplicationTerminateReply values changed")
	}
}

func TestNotificationNames(t *testing.T) {
	for _, n := range []string{nameWillPowerOff, nameWillSleep, nameWillTerminate, nameDidFinishLaunched} {
		if !strings.HasPrefix(n, "NS") || !strings.HasSuffix(n, "Notification") {
			t.Errorf("%q is not a Cocoa notification name", n)
		}
	}
}

func TestHasAppSuffix(t *testing.T) {
	for path, want := range map[string]bool{
		"/Applications/RAMBar.app":  true,
		"/Applications/RAMBar.app/": true,
		"/usr/local/bin":            false,
		"/Users/me/go/bin/rambar":   false,
		"/Volumes/x/RAMBar.apps":    false,
	} {
		if got := hasAppSuffix(path); got != want {
			t.Errorf("hasAppSuffix(%q) = %v, want %v", path, got, want)
		}
	}
}

// RAMBar asks for banners with sound; a menu-bar app has no Dock icon to
// badge. The values are UNAuthorizationOptions' and
// UNNotificationInterruptionLevel's.
func TestNotificationOptions(t *testing.T) {
	if unOptionBadge != 1 || unOptionSound != 2 || unOptionAlert != 4 {
		t.Error("UNAuthorizationOptions values changed")
	}
	if notifyOptions != 6 || notifyOptions&unOptionBadge != 0 {
		t.Errorf("notifyOptions = %d, want alert|sound (6)", notifyOptions)
	}
	if interruptionActive != 1 {
		t.Errorf("interruptionActive = %d, want UNNotificationInterruptionLevelActive (1)", interruptionActive)
	}
}

// The darwin files register their own selectors with own(), which panics at
// package init on a Mac for a name missing from ownMethods; and every
// selector they send must be well formed. Both are read from the sources
// here, so a typo fails on Linux.
func TestDarwinSelectors(t *testing.T) {
	files, err := filepath.Glob("*_darwin.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no darwin sources: %v", err)
	}
	ownCall := regexp.MustCompile(`own\("([^"]*)"\)`)
	sent := regexp.MustCompile(`RegisterName\("([^"]*)"\)`)
	wellFormed := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(:|([A-Za-z0-9_]*:)+)?$`)
	owned := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ownCall.FindAllStringSubmatch(string(src), -1) {
			owned++
			if _, ok := ownMethods[m[1]]; !ok {
				t.Errorf("%s: own(%q) is not in ownMethods: the package would panic at init on a Mac", f, m[1])
			}
		}
		for _, m := range sent.FindAllStringSubmatch(string(src), -1) {
			if !wellFormed.MatchString(m[1]) {
				t.Errorf("%s: selector %q is not well formed", f, m[1])
			}
		}
	}
	if owned < len(ownMethods)-1 { // applicationShouldTerminate: is added to the delegate, also via own
		t.Errorf("only %d own() calls for %d own methods", owned, len(ownMethods))
	}
}

// A notification shown while RAMBar is frontmost is a banner, kept in
// Notification Center, with its sound (UNNotificationPresentationOptions).
func TestPresentationOptions(t *testing.T) {
	if presentSound != 2 || presentList != 8 || presentBanner != 16 {
		t.Error("UNNotificationPresentationOptions values changed")
	}
	if presentNow != 26 {
		t.Errorf("presentNow = %d, want banner|list|sound (26)", presentNow)
	}
}

// The app delegate is never swapped: applicationShouldTerminate: is added
// to the delegate's class before the menu bar sets its delegate, and
// nothing here sets NSApp's delegate (setDelegate: goes only to the
// notification center, and to text fields as setDelegate: of a control).
func TestNeverSetsTheAppDelegate(t *testing.T) {
	files, err := filepath.Glob("*_darwin.go")
	if err != nil {
		t.Fatal(err)
	}
	sets := regexp.MustCompile(`\.Send\(selSetDelegate,`)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			if sets.MatchString(line) && !strings.Contains(line, "selCurrentCenter") {
				t.Errorf("%s sets a delegate other than the notification center's: %s", f, strings.TrimSpace(line))
			}
		}
	}
}

// cText makes what nsString sends acceptable to stringWithUTF8String:,
// which returns nil for invalid UTF-8 and stops at a NUL.
func TestCText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Scratch", "Scratch"},
		{"Café ☕", "Café ☕"},
		{"", ""},
		{"a\x00b", "ab"},
		{"\x00", ""},
		{"bad\xffname", "bad\uFFFDname"},
		{"two\xc3\x28bad", "two\uFFFD(bad"},
		{"\xff\xfe\x00x", "\uFFFDx"},
	} {
		got := cText(c.in)
		if got != c.want || !utf8.ValidString(got) || strings.ContainsRune(got, 0) {
			t.Errorf("cText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
