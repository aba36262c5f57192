package cocoa

import "strings"

// The Objective-C names this package sends or answers, kept in one table so
// that a test on any OS checks them (a selector's colons are its arguments;
// a typo here would only show on a Mac as "unrecognized selector").

// Notifications observed. Their values are their names (Foundation and
// AppKit define them so); the darwin side reads the framework's own symbol
// first and falls back to these.
const (
	nameWillPowerOff      = "NSWorkspaceWillPowerOffNotification"
	nameWillSleep         = "NSWorkspaceWillSleepNotification"
	nameWillTerminate     = "NSApplicationWillTerminateNotification"
	nameDidFinishLaunched = "NSApplicationDidFinishLaunchingNotification"
)

// Methods of RAMBar's own Objective-C class (and the one added to the app
// delegate), with the number of object arguments each takes.
var ownMethods = map[string]int{
	"rambarRunQueued:":            1, // drains the main-thread queue
	"rambarWillPowerOff:":         1,
	"rambarWillSleep:":            1,
	"rambarWillTerminate:":        1,
	"rambarDidFinishLaunching:":   1,
	"rambarFormChanged:":          1, // a popup or radio in the New RAM Disk window
	"rambarChooseFolder:":         1,
	"controlTextDidChange:":       1, // NSTextFieldDelegate: typing in the window
	"applicationShouldTerminate:": 1, // added to the app delegate's class
	// UNUserNotificationCenterDelegate, on RAMBar's notification delegate.
	"userNotificationCenter:willPresentNotification:withCompletionHandler:": 3,
}

// arity is the number of arguments a selector takes: its colons.
func arity(sel string) int { return strings.Count(sel, ":") }

// NSApplicationTerminateReply (AppKit).
const (
	terminateCancel = 0
	terminateNow    = 1
	terminateLater  = 2
)

// NSModalResponse of an NSAlert: its buttons in the order added.
const (
	alertFirstButton  = 1000
	alertSecondButton = 1001
	alertThirdButton  = 1002
)

// UNAuthorizationOptions (UserNotifications).
const (
	unOptionBadge = 1 << 0
	unOptionSound = 1 << 1
	unOptionAlert = 1 << 2
)

// UNNotificationPresentationOptions (macOS 11+ for banner and list).
const (
	presentSound  = 1 << 1
	presentList   = 1 << 3
	presentBanner = 1 << 4
)

// presentNow is how a notification is shown while RAMBar is the frontmost
// app: a banner, kept in Notification Center, with its sound.
const presentNow = presentBanner | presentList | presentSound

// notifyOptions are what RAMBar asks for: a banner with sound, no badge (a
// menu-bar app has no Dock icon to badge).
const notifyOptions = unOptionAlert | unOptionSound

// hasAppSuffix reports whether a bundle path is an application bundle
// (a bare executable's main bundle is its folder).
func hasAppSuffix(path string) bool {
	return strings.HasSuffix(strings.TrimSuffix(path, "/"), ".app")
}

// terminateEncoding is applicationShouldTerminate:'s type: it returns an
// NSApplicationTerminateReply (NSUInteger, "Q"), takes self ("@"), _cmd
// (":") and the sender ("@").
const terminateEncoding = "Q@:@"

// UNNotificationInterruptionLevelActive (macOS 12+): shown at once, not
// breaking through Focus. The setter is sent only where the content object
// answers it (older systems would raise "unrecognized selector").
const interruptionActive = 1

// cText is s as stringWithUTF8String: takes it: each run of invalid UTF-8
// made U+FFFD and every NUL removed (C text ends at the first one).
func cText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}
