//go:build darwin

package cocoa

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

var selWillPresent = own("userNotificationCenter:willPresentNotification:withCompletionHandler:")

// notifyDelegate is RAMBar's UNUserNotificationCenterDelegate. The center
// holds its delegate weakly: this reference keeps it alive for the life of
// the process.
var notifyDelegate struct {
	sync.Mutex
	obj objc.ID
}

// setNotificationDelegate makes RAMBar's delegate the notification
// center's: it answers willPresentNotification with banner, list and
// sound, so a notification shows while RAMBar is the frontmost app (it is
// after each of its dialogs; with no delegate the system drops it then).
// Call it before AppKit finishes launching, from the app bundle only
// (UNUserNotificationCenter raises outside one).
func setNotificationDelegate() error {
	notifyDelegate.Lock()
	defer notifyDelegate.Unlock()
	if notifyDelegate.obj != 0 {
		return nil
	}
	if err := loadFramework("UserNotifications"); err != nil {
		return err
	}
	var protocols []*objc.Protocol
	if p := objc.GetProtocol("UNUserNotificationCenterDelegate"); p != nil {
		protocols = append(protocols, p)
	}
	cls, err := objc.RegisterClass("RAMBarNotificationDelegate", objc.GetClass("NSObject"), protocols, nil,
		[]objc.MethodDef{{Cmd: selWillPresent, Fn: willPresent}})
	if err != nil {
		return fmt.Errorf("cocoa: register the notification delegate: %w", err)
	}
	var set bool
	err = offMain(func() {
		center := class("UNUserNotificationCenter")
		if center == 0 {
			return
		}
		obj := objc.ID(cls).Send(selNew) // +1: kept for the life of the process
		center.Send(selCurrentCenter).Send(selSetDelegate, obj)
		notifyDelegate.obj, set = obj, true
	})
	if err == nil && !set {
		err = fmt.Errorf("cocoa: no UNUserNotificationCenter (macOS 10.14+): no notification delegate")
	}
	return err
}

// willPresent answers userNotificationCenter:willPresentNotification:
// withCompletionHandler: by calling the handler with presentNow.
func willPresent(self objc.ID, cmd objc.SEL, center, notification, handler objc.ID) {
	callBlockUint(handler, presentNow)
}

// blockLiteral is the head of an Objective-C block (the Block ABI): isa,
// flags and a reserved int, then the function to call, which takes the
// block itself and then the block's arguments.
type blockLiteral struct {
	_      uintptr // isa
	_      int32   // flags
	_      int32   // reserved
	invoke uintptr
}

// callBlockUint calls a block that AppKit passed in (not one made in Go,
// which objc.Block can call) with one NSUInteger argument.
func callBlockUint(block objc.ID, v uint) {
	if block == 0 {
		return
	}
	lit := *(**blockLiteral)(unsafe.Pointer(&block))
	purego.SyscallN(lit.invoke, uintptr(block), uintptr(v))
}

// notificationDelegateSet reports whether the center's delegate is
// RAMBar's.
func notificationDelegateSet() bool {
	notifyDelegate.Lock()
	obj := notifyDelegate.obj
	notifyDelegate.Unlock()
	if obj == 0 {
		return false
	}
	var set bool
	offMain(func() {
		if c := class("UNUserNotificationCenter"); c != 0 {
			set = c.Send(selCurrentCenter).Send(selDelegate) == obj
		}
	})
	return set
}
