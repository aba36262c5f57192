//go:build darwin

package cocoa

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/ebitengine/purego/objc"

	"rambar/ramdisk"
)

var (
	selCurrentCenter     = objc.RegisterName("currentNotificationCenter")
	selRequestAuth       = objc.RegisterName("requestAuthorizationWithOptions:completionHandler:")
	selSetTitle          = objc.RegisterName("setTitle:")
	selSetBody           = objc.RegisterName("setBody:")
	selRequestWithID     = objc.RegisterName("requestWithIdentifier:content:trigger:")
	selAddRequest        = objc.RegisterName("addNotificationRequest:withCompletionHandler:")
	selLocalizedDesc     = objc.RegisterName("localizedDescription")
	selDefaultSound      = objc.RegisterName("defaultSound")
	selSetSound          = objc.RegisterName("setSound:")
	selSetThreadID       = objc.RegisterName("setThreadIdentifier:")
	selSetInterruptLevel = objc.RegisterName("setInterruptionLevel:")
)

// unCenter is UNUserNotificationCenter.currentNotificationCenter.
type unCenter struct{ c objc.ID }

var postSeq atomic.Int64

// NewCenter returns the app's notification center. It refuses outside an
// app bundle: UNUserNotificationCenter raises an exception there (there is
// no bundle to attribute the notifications to).
func NewCenter() (Center, error) {
	if !inBundle() {
		return nil, fmt.Errorf("notification center: %w: not running from an app bundle", ramdisk.ErrUnsupported)
	}
	if err := loadFramework("UserNotifications"); err != nil {
		return nil, err
	}
	var c objc.ID
	err := offMain(func() {
		if cls := class("UNUserNotificationCenter"); cls != 0 {
			c = cls.Send(selCurrentCenter).Send(selRetain)
		}
	})
	if err != nil {
		return nil, err
	}
	if c == 0 {
		return nil, fmt.Errorf("notification center: %w: no UNUserNotificationCenter (macOS 10.14+)", ramdisk.ErrUnsupported)
	}
	return &unCenter{c: c}, nil
}

// nsError is an NSError's words ("" for nil).
func nsError(e objc.ID) string {
	if e == 0 {
		return ""
	}
	return goString(e.Send(selLocalizedDesc))
}

type answer struct {
	ok  bool
	err string
}

// Authorize implements Center. The completion handler runs on a queue of
// the framework's; the answer is handed over through a channel.
func (u *unCenter) Authorize(ctx context.Context) (bool, error) {
	ch := make(chan answer, 1)
	block := objc.NewBlock(func(_ objc.Block, granted bool, err objc.ID) {
		ch <- answer{granted, nsError(err)}
	})
	defer block.Release() // the center keeps its own copy while it asks
	if err := offMain(func() { u.c.Send(selRequestAuth, uint(notifyOptions), block) }); err != nil {
		return false, err
	}
	select {
	case a := <-ch:
		if a.err != "" {
			return a.ok, fmt.Errorf("UNUserNotificationCenter requestAuthorization: %s", a.err)
		}
		return a.ok, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Post implements Center: a banner with the default sound, grouped under
// one thread, shown now (no trigger).
func (u *unCenter) Post(ctx context.Context, title, text string) error {
	ch := make(chan answer, 1)
	block := objc.NewBlock(func(_ objc.Block, err objc.ID) { ch <- answer{err == 0, nsError(err)} })
	defer block.Release()
	err := offMain(func() {
		content := class("UNMutableNotificationContent").Send(selNew)
		defer content.Send(selRelease)
		content.Send(selSetTitle, nsString(title))
		content.Send(selSetBody, nsString(text))
		content.Send(selSetSound, class("UNNotificationSound").Send(selDefaultSound))
		content.Send(selSetThreadID, nsString("rambar"))
		if objc.Send[bool](content, selRespondsToSelector, selSetInterruptLevel) {
			content.Send(selSetInterruptLevel, uint(interruptionActive))
		}
		id := "rambar-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "-" + strconv.FormatInt(postSeq.Add(1), 10)
		req := class("UNNotificationRequest").Send(selRequestWithID, nsString(id), content, objc.ID(0))
		u.c.Send(selAddRequest, req, block)
	})
	if err != nil {
		return err
	}
	select {
	case a := <-ch:
		if !a.ok {
			return fmt.Errorf("UNUserNotificationCenter addNotificationRequest: %s", a.err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
