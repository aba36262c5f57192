//go:build darwin

package cocoa

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ebitengine/purego/objc"
)

var (
	selInstancesRespond   = objc.RegisterName("instancesRespondToSelector:")
	selDisableRelaunch    = objc.RegisterName("disableRelaunchOnLogin")
	selRemoveObserverName = objc.RegisterName("removeObserver:name:object:")
	selClassName          = objc.RegisterName("className")
)

// NSApplicationActivationPolicyAccessory: no Dock icon and no menu bar of
// its own, as LSUIElement gives a bundle; sent so a bare binary behaves
// the same.
const activationAccessory = 1

// launch is what Prepare did, for Probe.
var launch struct {
	sync.Mutex
	prepared, relaunchOff bool
	class                 string
	launched              atomic.Bool
}

// Prepare readies the native side before AppKit's run loop starts; call it
// once, on the main goroutine, before the menu bar sets its app delegate:
//
//   - delegateClass (the menu bar's NSApplicationDelegate class; "" for
//     none) gets an applicationShouldTerminate: that answers for the Guard
//     Watch is given, so the delegate is never swapped or set again;
//   - the main menu, with its Edit submenu, is set when AppKit has finished
//     launching (⌘C, ⌘V… in every dialog);
//   - disableRelaunchOnLogin is sent once (the login item starts RAMBar;
//     macOS must not reopen it a second time);
//   - setActivationPolicy: Accessory is sent, so a bare binary (make run
//     outside the bundle, go run) gets no Dock icon either;
//   - from the app bundle, UNUserNotificationCenter gets RAMBar's delegate,
//     which asks for banners while RAMBar is frontmost (it is after every
//     dialog, and without a delegate the system drops them then).
//
// What could not be done is returned, joined; the rest is done anyway.
func Prepare(delegateClass string) error {
	obj, err := native()
	if err != nil {
		return err
	}
	launch.Lock()
	defer launch.Unlock()
	if launch.prepared {
		return nil
	}
	launch.prepared, launch.class = true, delegateClass
	var errs []error
	if delegateClass != "" {
		errs = append(errs, addShouldTerminate(delegateClass))
	}
	handle(selDidFinishLaunched, func(objc.ID) {
		launch.launched.Store(true)
		installMainMenu()
	})
	withPool(func() {
		class("NSNotificationCenter").Send(selDefaultCenter).Send(selAddObserver, obj, selDidFinishLaunched,
			constString(appKitPath, nameDidFinishLaunched, nameDidFinishLaunched), objc.ID(0))
		app := class("NSApplication").Send(selSharedApplication)
		app.Send(selDisableRelaunch)
		launch.relaunchOff = true
		app.Send(selSetActivationPolicy, activationAccessory)
	})
	if inBundle() {
		errs = append(errs, setNotificationDelegate())
	}
	return errors.Join(errs...)
}

// addShouldTerminate gives the delegate class an applicationShouldTerminate:
// that asks the Ending Watch set (none: terminate now), unless the class
// has one of its own. It is added to the class before any instance is the
// app's delegate, so AppKit sees it whenever it asks.
func addShouldTerminate(name string) error {
	cls := objc.GetClass(name)
	if cls == 0 {
		return fmt.Errorf("cocoa: no class %s: applicationShouldTerminate: is not answered", name)
	}
	if objc.Send[bool](objc.ID(cls), selInstancesRespond, selShouldTerminate) {
		return nil
	}
	imp := objc.NewIMP(func(self objc.ID, cmd objc.SEL, sender objc.ID) uint {
		return terminateReply(watching.Load(), func() {
			onMain(func() { class("NSApplication").Send(selSharedApplication).Send(selReplyToShouldTerminate, true) })
		})
	})
	if !cls.AddMethod(selShouldTerminate, imp, terminateEncoding) {
		return fmt.Errorf("cocoa: add applicationShouldTerminate: to %s: refused", name)
	}
	return nil
}

// className is an object's class name ("" for nil).
func className(obj objc.ID) string {
	if obj == 0 {
		return ""
	}
	return goString(obj.Send(selClassName))
}
