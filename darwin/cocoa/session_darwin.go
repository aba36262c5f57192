//go:build darwin

package cocoa

import (
	"fmt"

	"github.com/ebitengine/purego/objc"
)

const (
	appKitPath     = "/System/Library/Frameworks/AppKit.framework/AppKit"
	foundationPath = "/System/Library/Frameworks/Foundation.framework/Foundation"
)

// Watch makes g save when the session ends (log out, restart, shut down),
// before the Mac sleeps, and when the app terminates:
//
//   - NSWorkspaceWillPowerOffNotification starts the save without blocking
//     the main thread;
//   - NSWorkspaceWillSleepNotification saves before returning (sleep waits
//     for the main thread, up to SleepBound);
//   - applicationShouldTerminate:, added to the app delegate once AppKit has
//     finished launching (fyne's delegate has none), answers "later" until
//     the save ends (Ending);
//   - NSApplicationWillTerminateNotification saves before AppKit calls exit
//     if that did not happen yet.
//
// logf receives what went wrong (nil: nothing is logged). Call it before the
// app's run loop starts (AppKit's did-finish-launching must come after),
// from any goroutine; stop removes the observers.
func Watch(g *Guard, logf func(format string, args ...any)) (stop func(), err error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	obj, err := native()
	if err != nil {
		return nil, err
	}
	end := &Ending{G: g}
	obs := observers(g, end, func() error { return answerTerminate(end) }, logf)
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
	return func() {
		offMain(func() {
			class("NSWorkspace").Send(selSharedWorkspace).Send(selNotificationCenter).Send(selRemoveObserver, obj)
			class("NSNotificationCenter").Send(selDefaultCenter).Send(selRemoveObserver, obj)
		})
	}, nil
}

// answerTerminate gives the app delegate an applicationShouldTerminate: that
// runs end, unless it has one of its own. It runs on the main thread, once
// the delegate is set. The delegate is then unset and set again (the same
// object: a no-op could be skipped), because NSApplication may remember
// which methods its delegate answers when it is set (to be confirmed on a
// Mac, darwin/README.md).
func answerTerminate(end *Ending) error {
	app := class("NSApplication").Send(selSharedApplication)
	del := app.Send(selDelegate)
	if del == 0 {
		return fmt.Errorf("cocoa: the app has no delegate; applicationShouldTerminate: is not answered")
	}
	if objc.Send[bool](del, selRespondsToSelector, selShouldTerminate) {
		return nil
	}
	imp := objc.NewIMP(func(self objc.ID, cmd objc.SEL, sender objc.ID) uint {
		end.ShouldTerminate(func() {
			onMain(func() { app.Send(selReplyToShouldTerminate, true) })
		})
		return terminateLater
	})
	if !del.Class().AddMethod(selShouldTerminate, imp, terminateEncoding) {
		return fmt.Errorf("cocoa: add applicationShouldTerminate: to %s: refused", goString(objc.ID(del.Class()).Send(objc.RegisterName("description"))))
	}
	app.Send(selSetDelegate, objc.ID(0))
	app.Send(selSetDelegate, del)
	return nil
}
