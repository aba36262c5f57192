//go:build darwin

package cocoa

import (
	"errors"
	"sync"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

var (
	selMainMenu        = objc.RegisterName("mainMenu")
	selSetMainMenu     = objc.RegisterName("setMainMenu:")
	selInitWithTitle   = objc.RegisterName("initWithTitle:")
	selInitItem        = objc.RegisterName("initWithTitle:action:keyEquivalent:")
	selAddItem         = objc.RegisterName("addItem:")
	selSeparatorItem   = objc.RegisterName("separatorItem")
	selSetSubmenu      = objc.RegisterName("setSubmenu:")
	selSubmenu         = objc.RegisterName("submenu")
	selSetKeyMask      = objc.RegisterName("setKeyEquivalentModifierMask:")
	selKeyMask         = objc.RegisterName("keyEquivalentModifierMask")
	selKeyEquivalent   = objc.RegisterName("keyEquivalent")
	selNumberOfItems   = objc.RegisterName("numberOfItems")
	selItemAtIndex     = objc.RegisterName("itemAtIndex:")
	selTitle           = objc.RegisterName("title")
	selAction          = objc.RegisterName("action")
	selTarget          = objc.RegisterName("target")
	selIsSeparator     = objc.RegisterName("isSeparatorItem")
	selItemWithTitle   = objc.RegisterName("itemWithTitle:")
	selPerformKeyEquiv = objc.RegisterName("performKeyEquivalent:")
	selTargetForAction = objc.RegisterName("targetForAction:to:from:")
)

const editTitle = "Edit"

// installMainMenu sets the app's main menu (never shown: RAMBar is an
// LSUIElement app) with the Edit submenu of editMenu, unless the menu has
// an Edit submenu already. Main thread only.
func installMainMenu() {
	app := class("NSApplication").Send(selSharedApplication)
	if cur := app.Send(selMainMenu); cur != 0 {
		if it := cur.Send(selItemWithTitle, nsString(editTitle)); it != 0 && it.Send(selSubmenu) != 0 {
			return
		}
	}
	main := class("NSMenu").Send(selAlloc).Send(selInitWithTitle, nsString("MainMenu")).Send(selAutorelease)
	// The first entry is the application menu, whatever its title.
	appItem := class("NSMenuItem").Send(selNew).Send(selAutorelease)
	appItem.Send(selSetSubmenu, class("NSMenu").Send(selAlloc).Send(selInitWithTitle, nsString("RAMBar")).Send(selAutorelease))
	main.Send(selAddItem, appItem)
	edit := class("NSMenu").Send(selAlloc).Send(selInitWithTitle, nsString(editTitle)).Send(selAutorelease)
	for _, c := range editMenu {
		if c.Action == "" {
			edit.Send(selAddItem, class("NSMenuItem").Send(selSeparatorItem))
			continue
		}
		it := class("NSMenuItem").Send(selAlloc).Send(selInitItem, nsString(c.Title), objc.RegisterName(c.Action), nsString(c.Key)).Send(selAutorelease)
		it.Send(selSetKeyMask, c.mask())
		edit.Send(selAddItem, it) // no target: the action goes to the first responder
	}
	editItem := class("NSMenuItem").Send(selAlloc).Send(selInitItem, nsString(editTitle), objc.SEL(0), nsString("")).Send(selAutorelease)
	editItem.Send(selSetSubmenu, edit)
	main.Send(selAddItem, editItem)
	app.Send(selSetMainMenu, main)
}

// readEditMenu reads the main menu's Edit submenu back. Main thread only.
func readEditMenu() ([]MenuEntry, error) {
	main := class("NSApplication").Send(selSharedApplication).Send(selMainMenu)
	if main == 0 {
		return nil, errors.New("NSApp has no main menu")
	}
	it := main.Send(selItemWithTitle, nsString(editTitle))
	if it == 0 || it.Send(selSubmenu) == 0 {
		return nil, errors.New("the main menu has no Edit submenu")
	}
	edit := it.Send(selSubmenu)
	n := objc.Send[int](edit, selNumberOfItems)
	out := make([]MenuEntry, 0, n)
	for i := range n {
		e := edit.Send(selItemAtIndex, i)
		if objc.Send[bool](e, selIsSeparator) {
			out = append(out, MenuEntry{Separator: true})
			continue
		}
		out = append(out, MenuEntry{
			Title:     goString(e.Send(selTitle)),
			Action:    selectorName(objc.Send[objc.SEL](e, selAction)),
			Key:       goString(e.Send(selKeyEquivalent)),
			Mask:      objc.Send[uint](e, selKeyMask),
			HasTarget: e.Send(selTarget) != 0,
		})
	}
	return out, nil
}

// nsStringFromSelector is Foundation's NSStringFromSelector.
var nsStringFromSelector = sync.OnceValue(func() func(objc.SEL) objc.ID {
	var f func(objc.SEL) objc.ID
	lib, err := purego.Dlopen(foundationPath, purego.RTLD_GLOBAL|purego.RTLD_NOW)
	if err != nil {
		return nil
	}
	purego.RegisterLibFunc(&f, lib, "NSStringFromSelector")
	return f
})

// selectorName is a selector's name ("" for none).
func selectorName(sel objc.SEL) string {
	f := nsStringFromSelector()
	if sel == 0 || f == nil {
		return ""
	}
	return goString(f(sel))
}
