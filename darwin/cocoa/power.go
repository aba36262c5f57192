package cocoa

import (
	"fmt"
	"sync"
	"time"
)

// The root power domain's messages (IOKit/IOMessage.h): each is
// iokit_common_msg(code), that is sys_iokit (err_system(0x38), 0xe0000000)
// | sub_iokit_common (0) | code.
const (
	msgCanSystemSleep     uint32 = 0xe0000270
	msgSystemWillSleep    uint32 = 0xe0000280
	msgSystemWillNotSleep uint32 = 0xe0000290
	msgSystemHasPoweredOn uint32 = 0xe0000300
	msgSystemWillPowerOn  uint32 = 0xe0000320
)

// AllowBound is how long a sleep waits for the save before RAMBar lets it
// go on: IOKit waits at most 30 s for IOAllowPowerChange, then sleeps
// anyway, so RAMBar answers a little before that.
const AllowBound = 25 * time.Second

// Power answers the system's power messages, as IORegisterForSystemPower
// delivers them (on a dispatch queue of its own, never the main thread).
// Only I/O Kit can hold sleep off (Apple's QA1340): at
// kIOMessageSystemWillSleep the Guard's save starts, and IOAllowPowerChange
// is called when it ends or after Bound, whichever comes first, exactly
// once; kIOMessageCanSystemSleep is allowed at once (RAMBar never vetoes
// idle sleep). Message returns at once, so the queue is never held.
type Power struct {
	// G runs the save before sleep. Required.
	G *Guard
	// Allow is IOAllowPowerChange for the message's notification ID.
	// Required.
	Allow func(id uintptr) error
	// Logf receives what went wrong (nil: nothing is logged).
	Logf func(format string, args ...any)
	// Bound overrides AllowBound (tests).
	Bound time.Duration

	wg sync.WaitGroup
}

func (p *Power) logf(format string, args ...any) {
	if p.Logf != nil {
		p.Logf(format, args...)
	}
}

func (p *Power) bound() time.Duration {
	if p.Bound > 0 {
		return p.Bound
	}
	return AllowBound
}

func (p *Power) allow(msg string, id uintptr) {
	if err := p.Allow(id); err != nil {
		p.logf("%s: %v", msg, err)
	}
}

// Message answers one power message; id is its notification ID (the
// callback's messageArgument). It never blocks.
func (p *Power) Message(msg uint32, id uintptr) {
	switch msg {
	case msgCanSystemSleep:
		p.allow(msgName(msg), id)
	case msgSystemWillSleep:
		p.willSleep(id)
	}
}

// willSleep starts the save before sleep and allows the sleep when it has
// ended or Bound has passed.
func (p *Power) willSleep(id uintptr) {
	done := make(chan error, 1)
	go func() { done <- p.G.Run(WillSleep) }()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTimer(p.bound())
		defer t.Stop()
		select {
		case err := <-done:
			if err != nil {
				p.logf("before sleep: %v", err)
			}
		case <-t.C:
			p.logf("before sleep: %v after %v: the Mac sleeps now", ErrTimedOut, p.bound())
		}
		p.allow(msgName(msgSystemWillSleep), id)
	}()
}

// Wait waits for the answers to the sleeps that have begun (tests and
// stop).
func (p *Power) Wait() { p.wg.Wait() }

// msgName names a power message for logs.
func msgName(msg uint32) string {
	switch msg {
	case msgCanSystemSleep:
		return "can system sleep"
	case msgSystemWillSleep:
		return "system will sleep"
	case msgSystemWillNotSleep:
		return "system will not sleep"
	case msgSystemHasPoweredOn:
		return "system has powered on"
	case msgSystemWillPowerOn:
		return "system will power on"
	}
	return fmt.Sprintf("message %#x", msg)
}
