//go:build darwin

package cocoa

import (
	"context"
	"time"

	"github.com/ebitengine/purego/objc"
)

var (
	selGetSettings         = objc.RegisterName("getNotificationSettingsWithCompletionHandler:")
	selAuthorizationStatus = objc.RegisterName("authorizationStatus")
)

// Describe reads the native side's state for the doctor, without prompting.
func Describe(ctx context.Context) Report {
	var r Report
	r.InBundle = inBundle()
	offMain(func() {
		if b := class("NSBundle").Send(selMainBundle); b != 0 {
			r.BundleID = goString(b.Send(selBundleIdentifier))
		}
	})
	if svc, err := NewLoginService(); err != nil {
		r.LoginErr = err.Error()
	} else if st, err := svc.Status(); err != nil {
		r.LoginErr = err.Error()
	} else {
		r.Login = st
	}
	c, err := NewCenter()
	if err != nil {
		r.NotifyErr = err.Error()
		return r
	}
	st, err := c.Authorization(ctx)
	if err != nil {
		r.NotifyErr = err.Error()
	} else {
		r.Notify = st
	}
	return r
}

// Authorization implements Center: the center's settings
// (getNotificationSettingsWithCompletionHandler:, which never prompts).
func (u *unCenter) Authorization(ctx context.Context) (AuthStatus, error) {
	ch := make(chan AuthStatus, 1)
	block := objc.NewBlock(func(_ objc.Block, settings objc.ID) {
		ch <- AuthStatus(objc.Send[int](settings, selAuthorizationStatus))
	})
	defer block.Release()
	if err := offMain(func() { u.c.Send(selGetSettings, block) }); err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case st := <-ch:
		return st, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
