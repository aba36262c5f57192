//go:build darwin

package cocoa

import (
	"context"
	"errors"
	"fmt"
	"structs"
	"time"

	"github.com/ebitengine/purego/objc"
)

var (
	selIsActive       = objc.RegisterName("isActive")
	selKeyWindow      = objc.RegisterName("keyWindow")
	selModalWindow    = objc.RegisterName("modalWindow")
	selFirstResponder = objc.RegisterName("firstResponder")
	selIsKindOfClass  = objc.RegisterName("isKindOfClass:")
	selWindowNumber   = objc.RegisterName("windowNumber")
	selKeyEvent       = objc.RegisterName("keyEventWithType:location:modifierFlags:timestamp:windowNumber:context:characters:charactersIgnoringModifiers:isARepeat:keyCode:")
	selPaste          = objc.RegisterName("paste:")
	selButton         = objc.RegisterName("button")
)

// point is an NSPoint (CGPoint), passed by value.
type point struct {
	_    structs.HostLayout
	X, Y float64
}

// NSEventTypeKeyDown, and the virtual key code of A (kVK_ANSI_A).
const (
	eventKeyDown = 10
	keyCodeA     = 0
)

// Probe reads back how the native side is set up (for the self-test):
// Prepare and Watch, the app delegate and what it answers, the notification
// delegate, and the main menu's Edit submenu. It needs the run loop
// (the menu-bar app) and returns when the main thread has answered.
func Probe(ctx context.Context) (Wiring, error) {
	launch.Lock()
	w := Wiring{Prepared: launch.prepared, PreparedClass: launch.class, RelaunchDisabled: launch.relaunchOff}
	launch.Unlock()
	w.Launched = launch.launched.Load()
	w.Watching = watching.Load() != nil
	w.SleepHeld = powerWatch.Load() != nil
	var menuErr error
	err := onMainWait(ctx, func() {
		del := class("NSApplication").Send(selSharedApplication).Send(selDelegate)
		app := class("NSApplication").Send(selSharedApplication)
		w.Accessory = objc.Send[int](app, selActivationPolicy) == activationAccessory
		w.DelegateClass = className(del)
		w.AnswersTerminate = del != 0 && objc.Send[bool](del, selRespondsToSelector, selShouldTerminate)
		w.EditMenu, menuErr = readEditMenu()
	})
	if err != nil {
		return w, err
	}
	if inBundle() {
		w.NotificationDelegate = notificationDelegateSet()
	}
	return w, menuErr
}

// StatusItemTitle reads the title of the status item the menu bar made:
// the NSStatusItem in the app delegate's instance variable ivar (fyne's
// delegate keeps it in "statusItem"), its button's title.
func StatusItemTitle(ctx context.Context, ivar string) (string, error) {
	var title string
	var err error
	werr := onMainWait(ctx, func() {
		var item objc.ID
		if item, err = delegateIvar(ivar); err != nil {
			return
		}
		if item == 0 {
			err = errors.New("no status item: the menu bar has not made it")
			return
		}
		button := item.Send(selButton)
		if button == 0 {
			err = errors.New("the status item has no button")
			return
		}
		title = goString(button.Send(selTitle))
	})
	return title, errors.Join(werr, err)
}

// ProbeDialog shows an alert with a text field the way every RAMBar dialog
// is shown (activated, brought to the front) and, while it is up, reads
// whether it has the keyboard: the app active, the alert the key window,
// its field edited, paste: reaching a receiver, and ⌘A taken by the main
// menu as a key event. Then it closes the alert. It also makes a popup
// with two items of one title and counts its items. It needs the run loop.
func ProbeDialog(ctx context.Context) (DialogProbe, error) {
	var p DialogProbe
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	probed := make(chan struct{})
	go func() {
		for i := 0; i < 50 && ctx.Err() == nil; i++ {
			time.Sleep(200 * time.Millisecond)
			up := false
			onMainWait(ctx, func() {
				app := class("NSApplication").Send(selSharedApplication)
				modal := app.Send(selModalWindow)
				if modal == 0 {
					return
				}
				up = true
				probeKeyboard(app, modal, &p)
				app.Send(selAbortModal)
			})
			if up {
				close(probed)
				return
			}
		}
	}()
	text := "RAMBar self-test"
	_, err := appWindows{}.Alert(ctx, Alert{Title: "RAMBar self-test", Text: "This window closes by itself.", Buttons: []string{"OK"}, Field: &text})
	select {
	case <-probed:
	default:
		if err == nil {
			err = errors.New("the alert closed before it could be looked at")
		}
		return p, fmt.Errorf("dialog probe: %w", err)
	}
	items := []string{"Same", "Same", "Other"}
	err = onMainWait(ctx, func() {
		pop := newPopup(mkRect(0, 0, 200, 26), items, 0)
		p.PopupItems, p.PopupWant = objc.Send[int](pop, selNumberOfItems), len(items)
	})
	return p, err
}

// probeKeyboard fills p from the app and its modal window; main thread.
func probeKeyboard(app, modal objc.ID, p *DialogProbe) {
	p.Active = objc.Send[bool](app, selIsActive)
	key := app.Send(selKeyWindow)
	p.KeyIsAlert = key != 0 && key == modal
	if fr := modal.Send(selFirstResponder); fr != 0 {
		// A text field being edited has the window's field editor (an
		// NSTextView) as first responder.
		p.FieldEditing = objc.Send[bool](fr, selIsKindOfClass, class("NSTextView"))
	}
	p.PasteTarget = app.Send(selTargetForAction, selPaste, objc.ID(0), objc.ID(0)) != 0
	ev := class("NSEvent").Send(selKeyEvent, uint(eventKeyDown), point{}, uint(modifierCommand), float64(0),
		objc.Send[int](modal, selWindowNumber), objc.ID(0), nsString("a"), nsString("a"), false, uint16(keyCodeA))
	if ev != 0 {
		p.SelectAllKey = objc.Send[bool](app.Send(selMainMenu), selPerformKeyEquiv, ev)
	}
}

// StatusMenuTitles reads the titles of the status item's menu, which the
// app delegate keeps in its instance variable ivar (fyne's: "menu").
func StatusMenuTitles(ctx context.Context, ivar string) ([]string, error) {
	var titles []string
	var err error
	werr := onMainWait(ctx, func() {
		var menu objc.ID
		if menu, err = delegateIvar(ivar); err != nil {
			return
		}
		if menu == 0 {
			err = errors.New("the menu bar has no menu yet")
			return
		}
		for i := range objc.Send[int](menu, selNumberOfItems) {
			it := menu.Send(selItemAtIndex, i)
			if !objc.Send[bool](it, selIsSeparator) {
				titles = append(titles, goString(it.Send(selTitle)))
			}
		}
	})
	return titles, errors.Join(werr, err)
}

// delegateIvar is the value of the app delegate's instance variable ivar
// (0 when it is not set yet); on the main thread.
func delegateIvar(ivar string) (objc.ID, error) {
	del := class("NSApplication").Send(selSharedApplication).Send(selDelegate)
	if del == 0 {
		return 0, errors.New("NSApp has no delegate")
	}
	iv := del.Class().InstanceVariable(ivar)
	if iv == 0 {
		return 0, fmt.Errorf("the app delegate (%s) has no instance variable %s", className(del), ivar)
	}
	return del.GetIvar(iv), nil
}
