//go:build darwin

package cocoa

import (
	"context"

	"github.com/ebitengine/purego/objc"

	"rambar/ramdisk"
)

var (
	selAutorelease       = objc.RegisterName("autorelease")
	selActivateIgnoring  = objc.RegisterName("activateIgnoringOtherApps:")
	selMakeKeyFront      = objc.RegisterName("makeKeyAndOrderFront:")
	selMenu              = objc.RegisterName("menu")
	selAbortModal        = objc.RegisterName("abortModal")
	selSetMessageText    = objc.RegisterName("setMessageText:")
	selSetInformative    = objc.RegisterName("setInformativeText:")
	selAddButton         = objc.RegisterName("addButtonWithTitle:")
	selSetAccessoryView  = objc.RegisterName("setAccessoryView:")
	selLayout            = objc.RegisterName("layout")
	selWindow            = objc.RegisterName("window")
	selSetInitialFirst   = objc.RegisterName("setInitialFirstResponder:")
	selRunModal          = objc.RegisterName("runModal")
	selInitWithFrame     = objc.RegisterName("initWithFrame:")
	selInitWithFramePull = objc.RegisterName("initWithFrame:pullsDown:")
	selSetStringValue    = objc.RegisterName("setStringValue:")
	selStringValue       = objc.RegisterName("stringValue")
	selSelectItemAtIndex = objc.RegisterName("selectItemAtIndex:")
	selIndexOfSelected   = objc.RegisterName("indexOfSelectedItem")
	selOpenPanel         = objc.RegisterName("openPanel")
	selSetCanChooseFiles = objc.RegisterName("setCanChooseFiles:")
	selSetCanChooseDirs  = objc.RegisterName("setCanChooseDirectories:")
	selSetCanCreateDirs  = objc.RegisterName("setCanCreateDirectories:")
	selSetMultiple       = objc.RegisterName("setAllowsMultipleSelection:")
	selSetMessage        = objc.RegisterName("setMessage:")
	selSetDirectoryURL   = objc.RegisterName("setDirectoryURL:")
	selFileURLWithPath   = objc.RegisterName("fileURLWithPath:isDirectory:")
	selURL               = objc.RegisterName("URL")
	selPath              = objc.RegisterName("path")
	selSetFont           = objc.RegisterName("setFont:")
	selUserFixedPitch    = objc.RegisterName("userFixedPitchFontOfSize:")
	selSetSelectable     = objc.RegisterName("setSelectable:")
	selSizeToFit         = objc.RegisterName("sizeToFit")
)

// NSModalResponseOK, what an open panel's runModal returns for "Open".
const modalOK = 1

// appWindows is Windows over NSAlert and NSOpenPanel, on the main thread.
type appWindows struct{}

// NewWindows returns the native windows; the app's run loop must be running
// (the menu-bar app) for them to show.
func NewWindows() (Windows, error) {
	if _, err := native(); err != nil {
		return nil, err
	}
	return appWindows{}, nil
}

// Native returns Dialogs over the native windows.
func Native() (Dialogs, error) {
	w, err := NewWindows()
	return Dialogs{W: w}, err
}

// activateApp brings RAMBar to the front so its window takes the keyboard.
// activateIgnoringOtherApps:YES on every release: macOS 14's `activate` is
// cooperative and is ignored right after a click on a status item (the
// menu is then the active app's, not RAMBar's), which is how every RAMBar
// dialog is opened. Deprecated, still present.
func activateApp() {
	class("NSApplication").Send(selSharedApplication).Send(selActivateIgnoring, true)
}

// toFront makes a window the key window, in front; main thread only.
func toFront(w objc.ID) {
	if w != 0 {
		w.Send(selMakeKeyFront, objc.ID(0))
	}
}

// modals counts the modal loops running (they nest: the Folder… panel
// inside the New RAM Disk window), so an ended ctx aborts a loop while any
// runs, not only while the first one does.
var modals modalCount

// modal runs show on the main thread with the app activated and returns its
// NSModalResponse; when ctx ends first the modal loop is aborted and the
// answer is ramdisk.ErrCancelled.
func modal(ctx context.Context, show func() int) (int, error) {
	var resp int
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		if modals.running() {
			// abortModal may be sent from another thread (NSApplication docs).
			class("NSApplication").Send(selSharedApplication).Send(selAbortModal)
		}
	})
	defer stop()
	err := onMain(func() {
		defer close(done)
		if ctx.Err() != nil {
			return
		}
		activateApp()
		modals.enter()
		defer modals.leave()
		resp = show()
	})
	if err != nil {
		return 0, err
	}
	<-done
	if ctx.Err() != nil {
		return 0, ramdisk.ErrCancelled
	}
	return resp, nil
}

func newAlert(title, text string, buttons []string, cancel string) objc.ID {
	al := class("NSAlert").Send(selNew).Send(selAutorelease)
	al.Send(selSetMessageText, nsString(title))
	al.Send(selSetInformative, nsString(text))
	for _, b := range buttons {
		bt := al.Send(selAddButton, nsString(b))
		if b == cancel && bt != 0 {
			bt.Send(selSetKeyEquivalent, nsString("\x1b")) // Esc, whatever the language calls Cancel
		}
	}
	return al
}

var selSetKeyEquivalent = objc.RegisterName("setKeyEquivalent:")

// monoLabel is a selectable label showing text in the user's fixed-pitch
// font (Menlo unless changed), sized to fit it; main thread only.
func monoLabel(text string) objc.ID {
	l := class("NSTextField").Send(selLabelWithString, nsString(text))
	l.Send(selSetFont, class("NSFont").Send(selUserFixedPitch, float64(11)))
	l.Send(selSetSelectable, true)
	l.Send(selSizeToFit)
	return l
}

func newView(cls string, r rect) objc.ID {
	return class(cls).Send(selAlloc).Send(selInitWithFrame, r).Send(selAutorelease)
}

// newPopup is a popup button holding items, pick selected. The items are
// added to its menu one by one: NSPopUpButton's addItemWithTitle: removes
// an item of the same title first, so equal titles would collapse.
func newPopup(r rect, items []string, pick int) objc.ID {
	p := class("NSPopUpButton").Send(selAlloc).Send(selInitWithFramePull, r, false).Send(selAutorelease)
	menu := p.Send(selMenu)
	for _, it := range items {
		menu.Send(selAddItem, class("NSMenuItem").Send(selAlloc).Send(selInitItem, nsString(it), objc.SEL(0), nsString("")).Send(selAutorelease))
	}
	p.Send(selSelectItemAtIndex, pick)
	return p
}

// Alert implements Windows.
func (appWindows) Alert(ctx context.Context, a Alert) (Answer, error) {
	var ans Answer
	resp, err := modal(ctx, func() int {
		al := newAlert(a.Title, a.Text, a.Buttons, a.cancelTitle())
		var field, popup objc.ID
		switch {
		case a.Field != nil:
			field = newView("NSTextField", mkRect(0, 0, 300, 24))
			field.Send(selSetStringValue, nsString(*a.Field))
			al.Send(selSetAccessoryView, field)
		case len(a.Choices) > 0:
			popup = newPopup(mkRect(0, 0, 300, 26), a.Choices, a.Choice)
			al.Send(selSetAccessoryView, popup)
		case a.Mono != "":
			al.Send(selSetAccessoryView, monoLabel(a.Mono))
		}
		al.Send(selLayout)
		if field != 0 {
			al.Send(selWindow).Send(selSetInitialFirst, field)
		}
		toFront(al.Send(selWindow))
		r := objc.Send[int](al, selRunModal)
		if field != 0 {
			ans.Text = goString(field.Send(selStringValue))
		}
		if popup != 0 {
			ans.Choice = objc.Send[int](popup, selIndexOfSelected)
		}
		return r
	})
	if err != nil {
		return Answer{}, err
	}
	ans.Button, err = pressed(buttonIndex(resp), a.Buttons, a.cancelTitle())
	return ans, err
}

// ChooseFolder implements Windows.
func (appWindows) ChooseFolder(ctx context.Context, title, start string) (string, error) {
	var dir string
	_, err := modal(ctx, func() int {
		var ok bool
		dir, ok = runFolderPanel(title, start)
		if !ok {
			dir = ""
		}
		return 0
	})
	if err != nil {
		return "", err
	}
	if dir == "" {
		return "", ramdisk.ErrCancelled
	}
	return dir, nil
}

// runFolderPanel shows an open panel for one folder; main thread only.
func runFolderPanel(title, start string) (string, bool) {
	p := class("NSOpenPanel").Send(selOpenPanel)
	p.Send(selSetCanChooseFiles, false)
	p.Send(selSetCanChooseDirs, true)
	p.Send(selSetCanCreateDirs, true)
	p.Send(selSetMultiple, false)
	p.Send(selSetMessage, nsString(title))
	if start != "" {
		p.Send(selSetDirectoryURL, class("NSURL").Send(selFileURLWithPath, nsString(start), true))
	}
	activateApp()
	toFront(p)
	if objc.Send[int](p, selRunModal) != modalOK {
		return "", false
	}
	return goString(p.Send(selURL).Send(selPath)), true
}
