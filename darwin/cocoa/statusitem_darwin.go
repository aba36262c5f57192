//go:build darwin

package cocoa

import (
	"fmt"
	"runtime"
	"structs"
	"unsafe"

	"github.com/ebitengine/purego/objc"
)

// AppKit runs on the process's first thread: the main goroutine stays on it.
func init() { runtime.LockOSThread() }

var (
	selSetActivationPolicy = objc.RegisterName("setActivationPolicy:")
	selSystemStatusBar     = objc.RegisterName("systemStatusBar")
	selStatusItemWithLen   = objc.RegisterName("statusItemWithLength:")
	selButton              = objc.RegisterName("button")
	selSetImage            = objc.RegisterName("setImage:")
	selSetToolTip          = objc.RegisterName("setToolTip:")
	selSetMenu             = objc.RegisterName("setMenu:")
	selRemoveAllItems      = objc.RegisterName("removeAllItems")
	selAddItem             = objc.RegisterName("addItem:")
	selSeparatorItem       = objc.RegisterName("separatorItem")
	selInitWithTitle       = objc.RegisterName("initWithTitle:")
	selInitItem            = objc.RegisterName("initWithTitle:action:keyEquivalent:")
	selSetTag              = objc.RegisterName("setTag:")
	selTag                 = objc.RegisterName("tag")
	selSetState            = objc.RegisterName("setState:")
	selSetSubmenu          = objc.RegisterName("setSubmenu:")
	selSetAutoenables      = objc.RegisterName("setAutoenablesItems:")
	selRun                 = objc.RegisterName("run")
	selTerminate           = objc.RegisterName("terminate:")
	selDataWithBytes       = objc.RegisterName("dataWithBytes:length:")
	selInitWithData        = objc.RegisterName("initWithData:")
	selSetTemplate         = objc.RegisterName("setTemplate:")
	selSetSize             = objc.RegisterName("setSize:")
)

// size is an NSSize (CGSize), in the C layout.
type size struct {
	_    structs.HostLayout
	W, H float64
}

// StatusItem is RAMBar's icon in the menu bar with its menu, driven from Go
// (no cgo): Set replaces what it shows; clicks and the menu opening are
// reported to the functions given to RunStatusItem. Only the main thread
// touches its fields.
type StatusItem struct {
	item, menu objc.ID
	shown      MenuBar
	shape      string
	entries    map[string]objc.ID // key -> NSMenuItem
	keys       []string           // tag -> key
	click      func(key string)
	opened     func()
}

// status is the one status item, for the handlers of RAMBar's class.
var status *StatusItem

func init() {
	handle(selMenuClicked, func(sender objc.ID) {
		s := status
		if s == nil {
			return
		}
		if tag := objc.Send[int](sender, selTag); tag >= 0 && tag < len(s.keys) {
			go s.click(s.keys[tag])
		}
	})
	handle(selMenuWillOpen, func(objc.ID) {
		if s := status; s != nil && s.opened != nil {
			go s.opened()
		}
	})
}

// RunStatusItem makes this process a menu-bar app (no Dock icon), puts its
// status item in the menu bar, calls ready on a goroutine of its own, and
// runs AppKit until the app terminates; AppKit then exits the process, so
// RunStatusItem returns only when it could not start. It must be called on
// the main goroutine. click receives the key of a chosen entry and opened
// is told when the menu opens; both run on goroutines of their own.
func RunStatusItem(click func(key string), opened func(), ready func(*StatusItem)) error {
	obj, err := native()
	if err != nil {
		return err
	}
	s := &StatusItem{click: click, opened: opened, entries: map[string]objc.ID{}}
	withPool(func() {
		app := class("NSApplication").Send(selSharedApplication)
		app.Send(selSetActivationPolicy, activationAccessory)
		app.Send(selSetDelegate, obj)
		s.item = class("NSStatusBar").Send(selSystemStatusBar).Send(selStatusItemWithLen, float64(variableLength)).Send(selRetain)
		s.menu = class("NSMenu").Send(selNew)
		s.menu.Send(selSetAutoenables, false)
		s.menu.Send(selSetDelegate, obj)
		s.item.Send(selSetMenu, s.menu)
	})
	if s.item == 0 {
		return fmt.Errorf("cocoa: no status item from NSStatusBar")
	}
	status = s
	go ready(s)
	class("NSApplication").Send(selSharedApplication).Send(selRun)
	return fmt.Errorf("cocoa: the app's run loop ended")
}

// Terminate asks AppKit to end the app (applicationShouldTerminate:, then
// exit); it returns at once.
func Terminate() {
	onMain(func() { class("NSApplication").Send(selSharedApplication).Send(selTerminate, objc.ID(0)) })
}

// Set shows m: the icon, title and tooltip, and the menu, updated in place
// while its shape stays the same. Safe from any goroutine.
func (s *StatusItem) Set(m MenuBar) {
	onMain(func() { s.apply(m) })
}

func (s *StatusItem) apply(m MenuBar) {
	button := s.item.Send(selButton)
	if !sameIcon(m.Icon, s.shown.Icon) && len(m.Icon) > 0 {
		data := class("NSData").Send(selDataWithBytes, unsafe.Pointer(&m.Icon[0]), uint(len(m.Icon)))
		img := class("NSImage").Send(selAlloc).Send(selInitWithData, data).Send(selAutorelease)
		img.Send(selSetSize, size{W: 16, H: 16})
		img.Send(selSetTemplate, true)
		button.Send(selSetImage, img)
	}
	if m.Title != s.shown.Title {
		button.Send(selSetTitle, nsString(m.Title))
	}
	if m.Tooltip != s.shown.Tooltip {
		button.Send(selSetToolTip, nsString(m.Tooltip))
	}
	if sh := menuShape(m.Items); sh != s.shape {
		s.shape = sh
		s.rebuild(m.Items)
	} else {
		old := map[string]MenuItem{}
		walkItems(s.shown.Items, func(it MenuItem) { old[it.Key] = it })
		walkItems(m.Items, func(it MenuItem) { s.update(s.entries[it.Key], old[it.Key], it) })
	}
	s.shown = m
}

func (s *StatusItem) rebuild(items []MenuItem) {
	s.menu.Send(selRemoveAllItems)
	s.entries = map[string]objc.ID{}
	s.keys = nil
	s.fill(s.menu, items)
}

func (s *StatusItem) fill(menu objc.ID, items []MenuItem) {
	obj, _ := native()
	for _, it := range items {
		if it.Separator {
			menu.Send(selAddItem, class("NSMenuItem").Send(selSeparatorItem))
			continue
		}
		var action objc.SEL
		if len(it.Children) == 0 {
			action = selMenuClicked
		}
		e := class("NSMenuItem").Send(selAlloc).Send(selInitItem, nsString(it.Title), action, nsString("")).Send(selAutorelease)
		e.Send(selSetTarget, obj)
		e.Send(selSetTag, len(s.keys))
		s.keys = append(s.keys, it.Key)
		s.entries[it.Key] = e
		s.update(e, MenuItem{Title: it.Title}, it)
		if len(it.Children) > 0 {
			sub := class("NSMenu").Send(selAlloc).Send(selInitWithTitle, nsString(it.Title)).Send(selAutorelease)
			sub.Send(selSetAutoenables, false)
			s.fill(sub, it.Children)
			e.Send(selSetSubmenu, sub)
		}
		menu.Send(selAddItem, e)
	}
}

// update changes one entry in place to show want (was is what it shows; a
// new entry shows its title, no tooltip, no tick, enabled).
func (s *StatusItem) update(e objc.ID, was, want MenuItem) {
	if e == 0 {
		return
	}
	c := changeOf(was, want)
	if c.title {
		e.Send(selSetTitle, nsString(want.Title))
	}
	if c.tooltip {
		e.Send(selSetToolTip, nsString(want.Tooltip))
	}
	if c.checked {
		st := stateOff
		if want.Checked {
			st = stateOn
		}
		e.Send(selSetState, st)
	}
	if c.enabled {
		e.Send(selSetEnabled, !want.Disabled)
	}
}
