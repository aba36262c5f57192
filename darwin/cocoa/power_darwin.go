//go:build darwin

package cocoa

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/ebitengine/purego"
)

const iokitPath = "/System/Library/Frameworks/IOKit.framework/IOKit"

// The IOKit (IOPMLib.h, IOKitLib.h) and libdispatch functions the power
// watch calls, bound once.
var (
	ioRegisterForSystemPower           func(refcon uintptr, port *uintptr, callback uintptr, notifier *uint32) uint32
	ioDeregisterForSystemPower         func(notifier *uint32) int32
	ioAllowPowerChange                 func(kernelPort uint32, id uintptr) int32
	ioNotificationPortSetDispatchQueue func(port, queue uintptr)
	ioNotificationPortDestroy          func(port uintptr)
	ioServiceClose                     func(connect uint32) int32
	powerDispatchQueueCreate           func(label string, attr uintptr) uintptr
)

var iokit = sync.OnceValues(func() (uintptr, error) {
	lib, err := purego.Dlopen(iokitPath, purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return 0, fmt.Errorf("cocoa: load IOKit: %w", err)
	}
	sys, err := purego.Dlopen("/usr/lib/libSystem.B.dylib", purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return 0, fmt.Errorf("cocoa: load libSystem: %w", err)
	}
	purego.RegisterLibFunc(&ioRegisterForSystemPower, lib, "IORegisterForSystemPower")
	purego.RegisterLibFunc(&ioDeregisterForSystemPower, lib, "IODeregisterForSystemPower")
	purego.RegisterLibFunc(&ioAllowPowerChange, lib, "IOAllowPowerChange")
	purego.RegisterLibFunc(&ioNotificationPortSetDispatchQueue, lib, "IONotificationPortSetDispatchQueue")
	purego.RegisterLibFunc(&ioNotificationPortDestroy, lib, "IONotificationPortDestroy")
	purego.RegisterLibFunc(&ioServiceClose, lib, "IOServiceClose")
	purego.RegisterLibFunc(&powerDispatchQueueCreate, sys, "dispatch_queue_create")
	// IOServiceInterestCallback(refcon, service, messageType, messageArgument):
	// all four fit a register; messageType is a natural_t (the low 32 bits).
	return purego.NewCallback(func(_, _, msg, arg uintptr) {
		m := uint32(msg)
		if p := powerWatch.Load(); p != nil {
			p.Message(m, arg)
		} else if m == msgCanSystemSleep || m == msgSystemWillSleep {
			allowPower(arg) // stopping: let the sleep go on
		}
	}), nil
})

// powerWatch is the Power the IOKit callback answers for (nil: none, and
// every message is let go: idle sleep and sleep allowed at once).
var powerWatch atomic.Pointer[Power]

// powerReg is the one registration with the root power domain.
var powerReg struct {
	sync.Mutex
	root     uint32  // io_connect_t: IOAllowPowerChange's kernel port
	port     uintptr // IONotificationPortRef
	notifier uint32  // io_object_t, for IODeregisterForSystemPower
}

// allowPower is IOAllowPowerChange on the registration's port.
func allowPower(id uintptr) error {
	powerReg.Lock()
	root := powerReg.root
	powerReg.Unlock()
	if root == 0 {
		return fmt.Errorf("IOAllowPowerChange: not registered for system power")
	}
	if r := ioAllowPowerChange(root, id); r != 0 {
		return fmt.Errorf("IOAllowPowerChange: IOReturn %#x", uint32(r))
	}
	return nil
}

// watchPower registers for the system's sleep messages (IORegisterForSystemPower,
// its notification port on a serial dispatch queue of its own, so the main
// thread is never involved) and answers them with a Power over g. stop
// deregisters; a sleep already begun is still answered.
func watchPower(g *Guard, logf func(format string, args ...any)) (stop func(), err error) {
	cb, err := iokit()
	if err != nil {
		return nil, err
	}
	p := &Power{G: g, Allow: allowPower, Logf: logf}
	powerReg.Lock()
	defer powerReg.Unlock()
	if powerReg.root != 0 {
		return nil, fmt.Errorf("IORegisterForSystemPower: already registered")
	}
	powerWatch.Store(p)
	var port uintptr
	var notifier uint32
	root := ioRegisterForSystemPower(0, &port, cb, &notifier)
	if root == 0 || port == 0 {
		powerWatch.Store(nil)
		return nil, fmt.Errorf("IORegisterForSystemPower: refused (no root power domain connection)")
	}
	powerReg.root, powerReg.port, powerReg.notifier = root, port, notifier
	ioNotificationPortSetDispatchQueue(port, powerDispatchQueueCreate("com.rambar.power", 0))
	return func() { stopPower(p) }, nil
}

// stopPower ends the registration watchPower made for p: messages stop
// first; a sleep being answered still reaches IOAllowPowerChange through
// the kernel port, which is closed only after it.
func stopPower(p *Power) {
	powerReg.Lock()
	if powerReg.root == 0 {
		powerReg.Unlock()
		return
	}
	ioDeregisterForSystemPower(&powerReg.notifier)
	powerWatch.CompareAndSwap(p, nil) // a message still queued is let go
	powerReg.Unlock()
	p.Wait() // allowPower takes powerReg's lock
	powerReg.Lock()
	defer powerReg.Unlock()
	ioServiceClose(powerReg.root)
	ioNotificationPortDestroy(powerReg.port)
	powerReg.root, powerReg.port, powerReg.notifier = 0, 0, 0
}
