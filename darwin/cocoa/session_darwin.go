//go:build darwin

package cocoa

import (
	"sync/atomic"

	"github.com/ebitengine/purego/objc"
)

const (
	appKitPath     = "/System/Library/Frameworks/AppKit.framework/AppKit"
	foundationPath = "/System/Library/Frameworks/Foundation.framework/Foundation"
)

// watching is the Ending applicationShouldTerminate: (added by Prepare)
// answers for; nil while no Guard watches the session.
var watching atomic.Pointer[Ending]

// Watch makes g save when the session ends (log out, restart, shut down),
// before the Mac sleeps, and when the app terminates:
//
//   - NSWorkspaceWillPowerOffNotification starts the save without blocking
//     the main thread;
//   - before sleep, I/O Kit's kIOMessageSystemWillSleep (watchPower, on a
//     dispatch queue of its own) starts the save and holds the sleep with
//     IOAllowPowerChange until it ends or AllowBound passes: only I/O Kit
//     can delay sleep (QA1340); NSWorkspaceWillSleepNotification is a hint
//     that starts the save and returns at once;
//   - applicationShouldTerminate:, which Prepare added to the delegate's
//     class before the delegate was set, answers "later" until the save
//     ends, within one budget for the whole logout (Ending); notify tells
//     the user when that save failed;
//   - NSApplicationWillTerminateNotification saves before AppKit calls exit
//     if termination skipped the delegate.
//
// logf receives what went wrong (nil: nothing is logged); a power
// registration that fails is logged, and the rest is watched anyway. Call
// it from any goroutine; stop removes the observers and the registration.
func Watch(g *Guard, notify func(title, text string), logf func(format string, args ...any)) (stop func(), err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	obj, err := native()
	if err != nil {
		return nil, err
	}
	end := &Ending{G: g, Notify: notify}
	obs := observers(g, end, logf)
	for _, o := range obs {
		handle(objc.RegisterName(o.sel), func(objc.ID) { o.do() })
	}
	// Notification centers take observers from any thread, so this never
	// waits for a run loop that has not started yet.
	err = offMain(func() {
		ws := class("NSWorkspace").Send(selSharedWorkspace).Send(selNotificationCenter)
		nc := class("NSNotificationCenter").Send(selDefaultCenter)
		for _, o := range obs {
			center := nc
			if o.workspace {
				center = ws
			}
			center.Send(selAddObserver, obj, objc.RegisterName(o.sel), constString(appKitPath, o.name, o.name), objc.ID(0))
		}
	})
	if err != nil {
		return nil, err
	}
	stopPower, perr := watchPower(g, logf)
	if perr != nil {
		logf("saving before sleep: %v (the save starts at the workspace's notice, and sleep does not wait for it)", perr)
		stopPower = func() {}
	}
	watching.Store(end)
	return func() {
		stopPower()
		watching.CompareAndSwap(end, nil)
		offMain(func() {
			ws := class("NSWorkspace").Send(selSharedWorkspace).Send(selNotificationCenter)
			nc := class("NSNotificationCenter").Send(selDefaultCenter)
			for _, o := range obs {
				center := nc
				if o.workspace {
					center = ws
				}
				center.Send(selRemoveObserverName, obj, constString(appKitPath, o.name, o.name), objc.ID(0))
			}
		})
	}, nil
}
