//go:build darwin

package cocoa

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// AppKit runs on the process's first thread: the main goroutine stays on it.
func init() { runtime.LockOSThread() }

// Selectors sent from Go. Registering one takes the runtime's lock, so each
// is registered once here.
var (
	selAlloc                  = objc.RegisterName("alloc")
	selNew                    = objc.RegisterName("new")
	selRelease                = objc.RegisterName("release")
	selRetain                 = objc.RegisterName("retain")
	selDrain                  = objc.RegisterName("drain")
	selPerformOnMain          = objc.RegisterName("performSelectorOnMainThread:withObject:waitUntilDone:")
	selStringWithUTF8         = objc.RegisterName("stringWithUTF8String:")
	selString                 = objc.RegisterName("string")
	selSetActivationPolicy    = objc.RegisterName("setActivationPolicy:")
	selActivationPolicy       = objc.RegisterName("activationPolicy")
	selUTF8String             = objc.RegisterName("UTF8String")
	selDefaultCenter          = objc.RegisterName("defaultCenter")
	selAddObserver            = objc.RegisterName("addObserver:selector:name:object:")
	selSharedWorkspace        = objc.RegisterName("sharedWorkspace")
	selNotificationCenter     = objc.RegisterName("notificationCenter")
	selSharedApplication      = objc.RegisterName("sharedApplication")
	selDelegate               = objc.RegisterName("delegate")
	selSetDelegate            = objc.RegisterName("setDelegate:")
	selRespondsToSelector     = objc.RegisterName("respondsToSelector:")
	selReplyToShouldTerminate = objc.RegisterName("replyToApplicationShouldTerminate:")
	selMainBundle             = objc.RegisterName("mainBundle")
	selBundleIdentifier       = objc.RegisterName("bundleIdentifier")
	selBundlePath             = objc.RegisterName("bundlePath")
)

// Selectors of RAMBar's own class, answered in Go.
var (
	selRunQueued         = own("rambarRunQueued:")
	selWillPowerOff      = own("rambarWillPowerOff:")
	selWillSleep         = own("rambarWillSleep:")
	selWillTerminate     = own("rambarWillTerminate:")
	selDidFinishLaunched = own("rambarDidFinishLaunching:")
	selFormChanged       = own("rambarFormChanged:")
	selChooseFolder      = own("rambarChooseFolder:")
	selTextDidChange     = own("controlTextDidChange:")
	selShouldTerminate   = own("applicationShouldTerminate:")
)

// own registers one of the selectors of names.go, refusing any other (the
// table is what the tests check).
func own(name string) objc.SEL {
	if _, ok := ownMethods[name]; !ok {
		panic("cocoa: selector " + name + " is not in ownMethods")
	}
	return objc.RegisterName(name)
}

func class(name string) objc.ID { return objc.ID(objc.GetClass(name)) }

// nsString is an autoreleased NSString holding s, made valid first
// (stringWithUTF8String: returns nil for invalid UTF-8, and a NUL would end
// the text early); @"" when it is still refused.
func nsString(s string) objc.ID {
	if ns := class("NSString").Send(selStringWithUTF8, cText(s)); ns != 0 {
		return ns
	}
	return class("NSString").Send(selString)
}

// goString copies an NSString's text ("" for nil).
func goString(s objc.ID) string {
	if s == 0 {
		return ""
	}
	return objc.Send[string](s, selUTF8String)
}

// frameworks loads the frameworks whose classes are used, once.
var frameworks = sync.OnceValue(func() error {
	for _, f := range []string{
		"/System/Library/Frameworks/Foundation.framework/Foundation",
		"/System/Library/Frameworks/AppKit.framework/AppKit",
	} {
		if _, err := purego.Dlopen(f, purego.RTLD_GLOBAL|purego.RTLD_NOW); err != nil {
			return fmt.Errorf("cocoa: load %s: %w", f, err)
		}
	}
	return nil
})

// loadFramework opens an optional framework (UserNotifications,
// ServiceManagement); its classes exist only after this.
func loadFramework(name string) error {
	if _, err := purego.Dlopen("/System/Library/Frameworks/"+name+".framework/"+name, purego.RTLD_GLOBAL|purego.RTLD_NOW); err != nil {
		return fmt.Errorf("cocoa: load %s: %w", name, err)
	}
	return nil
}

// constString reads an NSString constant exported by a framework (the
// notification names), or makes one from fallback when the symbol is not
// found.
func constString(framework, symbol, fallback string) objc.ID {
	lib, err := purego.Dlopen(framework, purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err == nil {
		if sym, err := purego.Dlsym(lib, symbol); err == nil && sym != 0 {
			if s := **(**objc.ID)(unsafe.Pointer(&sym)); s != 0 {
				return s
			}
		}
	}
	return nsString(fallback).Send(selRetain)
}

// handlers answers the messages to RAMBar's own object, by selector. Set
// before the object can receive them; read on the main thread.
var handlers sync.Map // objc.SEL -> func(arg objc.ID)

func handle(sel objc.SEL, f func(arg objc.ID)) { handlers.Store(sel, f) }

func dispatch(self objc.ID, cmd objc.SEL, arg objc.ID) {
	if f, ok := handlers.Load(cmd); ok {
		f.(func(objc.ID))(arg)
	}
}

// native is the one instance of RAMBar's own class: observer, text field
// delegate, button target, and the main-thread queue's receiver.
var native = sync.OnceValues(func() (objc.ID, error) {
	if err := frameworks(); err != nil {
		return 0, err
	}
	var defs []objc.MethodDef
	for _, sel := range []objc.SEL{selRunQueued, selWillPowerOff, selWillSleep, selWillTerminate,
		selDidFinishLaunched, selFormChanged, selChooseFolder, selTextDidChange} {
		defs = append(defs, objc.MethodDef{Cmd: sel, Fn: dispatch})
	}
	cls, err := objc.RegisterClass("RAMBarNative", objc.GetClass("NSObject"), nil, nil, defs)
	if err != nil {
		return 0, fmt.Errorf("cocoa: register class: %w", err)
	}
	handle(selRunQueued, func(objc.ID) { runQueued() })
	return objc.ID(cls).Send(selNew), nil
})

// The main-thread queue: AppKit objects are used on the main thread only.
var queue struct {
	sync.Mutex
	fs []func()
}

func runQueued() {
	queue.Lock()
	fs := queue.fs
	queue.fs = nil
	queue.Unlock()
	for _, f := range fs {
		withPool(f)
	}
}

// onMain runs f on the main thread, later; it returns at once.
// performSelectorOnMainThread:withObject:waitUntilDone: queues in the
// common run-loop modes (NSThread.h: "equivalent to the first method with
// kCFRunLoopCommonModes"), which AppKit makes include the modal-panel mode:
// so f also runs while a modal window is up and while AppKit waits for the
// reply to applicationShouldTerminate: (it runs the loop in
// NSModalPanelRunLoopMode then).
func onMain(f func()) error {
	obj, err := native()
	if err != nil {
		return err
	}
	queue.Lock()
	queue.fs = append(queue.fs, f)
	queue.Unlock()
	obj.Send(selPerformOnMain, selRunQueued, objc.ID(0), false)
	return nil
}

// onMainWait runs f on the main thread and waits for it, at most until ctx
// ends (then f may still run later).
func onMainWait(ctx context.Context, f func()) error {
	done := make(chan struct{})
	if err := onMain(func() { defer close(done); f() }); err != nil {
		return err
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cocoa: the main thread did not answer: %w", ctx.Err())
	}
}

// offMain runs f on this goroutine's thread inside an autorelease pool, for
// the thread-safe APIs (UNUserNotificationCenter, SMAppService) that must
// not wait for a main thread that may be busy saving.
func offMain(f func()) error {
	if err := frameworks(); err != nil {
		return err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	withPool(f)
	return nil
}

func withPool(f func()) {
	pool := class("NSAutoreleasePool").Send(selNew)
	defer pool.Send(selDrain)
	f()
}

// inBundle reports whether this process runs from an app bundle with an
// identifier (RAMBar.app), which notifications and SMAppService require.
func inBundle() bool {
	var ok bool
	offMain(func() {
		b := class("NSBundle").Send(selMainBundle)
		ok = b != 0 && goString(b.Send(selBundleIdentifier)) != "" && hasAppSuffix(goString(b.Send(selBundlePath)))
	})
	return ok
}
