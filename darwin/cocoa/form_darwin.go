//go:build darwin

package cocoa

import (
	"context"

	"github.com/ebitengine/purego/objc"

	"rambar/ramdisk"
)

var (
	selLabelWithString    = objc.RegisterName("labelWithString:")
	selWrappingLabel      = objc.RegisterName("wrappingLabelWithString:")
	selButtonWithTitle    = objc.RegisterName("buttonWithTitle:target:action:")
	selSetFrame           = objc.RegisterName("setFrame:")
	selAddSubview         = objc.RegisterName("addSubview:")
	selSetEnabled         = objc.RegisterName("setEnabled:")
	selSetTarget          = objc.RegisterName("setTarget:")
	selSetAction          = objc.RegisterName("setAction:")
	selSetDelegateControl = objc.RegisterName("setDelegate:")
	selButtons            = objc.RegisterName("buttons")
	selObjectAtIndex      = objc.RegisterName("objectAtIndex:")
)

// formState is the New RAM Disk window while it is open: its controls, and
// what the handlers of RAMBar's class need to update the plan's words live.
// Only the main thread touches it.
type formState struct {
	opt                   FormOptions
	words                 func(Form) (string, bool)
	name, size            objc.ID
	fsPopup, contents     objc.ID
	folderLabel, folderBt objc.ID
	wordsLabel, create    objc.ID
	folder                string
	ctx                   context.Context
}

// openForm is the form being shown. The tray opens one dialog at a time,
// but modal loops nest on the main thread: a form opened inside another
// puts the outer one back when it closes.
var openForm *formState

func (s *formState) read() Form {
	fsIdx, contentsIdx := 0, 0
	if s.fsPopup != 0 {
		fsIdx = objc.Send[int](s.fsPopup, selIndexOfSelected)
	}
	if s.contents != 0 {
		contentsIdx = objc.Send[int](s.contents, selIndexOfSelected)
	}
	return formOf(goString(s.name.Send(selStringValue)), goString(s.size.Send(selStringValue)), fsIdx, contentsIdx, s.folder, s.opt)
}

// update shows the words for what the fields hold now and enables Create
// only when they allow it.
func (s *formState) update() {
	f := s.read()
	text, ok := s.words(f)
	s.wordsLabel.Send(selSetStringValue, nsString(text))
	s.create.Send(selSetEnabled, ok)
	if s.folderBt != 0 {
		s.folderBt.Send(selSetEnabled, f.Contents == ramdisk.Mirror)
		shown := s.folder
		if shown == "" {
			shown = "(none)"
		}
		s.folderLabel.Send(selSetStringValue, nsString(shown))
	}
}

func init() {
	handle(selTextDidChange, func(objc.ID) {
		if openForm != nil {
			openForm.update()
		}
	})
	handle(selFormChanged, func(objc.ID) {
		if openForm != nil {
			openForm.update()
		}
	})
	handle(selChooseFolder, func(objc.ID) {
		if s := openForm; s != nil {
			if dir, ok := runFolderPanel(s.opt.Lang.T("The folder this disk mirrors"), s.folder); ok {
				s.folder = dir
			}
			if s.ctx != nil && s.ctx.Err() != nil {
				// The form's ctx ended while the panel was up: its abort
				// stopped the panel; stop the form too.
				class("NSApplication").Send(selSharedApplication).Send(selAbortModal)
				return
			}
			s.update()
		}
	})
}

// Form implements Windows: one NSAlert whose accessory view holds the
// fields, Create (Return) and Cancel (Esc).
func (appWindows) Form(ctx context.Context, title string, f Form, opt FormOptions, words func(Form) (string, bool)) (Form, error) {
	if len(opt.FileSystems) == 0 {
		opt.FileSystems = []ramdisk.FileSystem{f.FS}
	}
	obj, err := native()
	if err != nil {
		return Form{}, err
	}
	var got Form
	resp, err := modal(ctx, func() int {
		al := newAlert(title, "", []string{opt.Lang.T("Create"), opt.Lang.T("Cancel")}, opt.Lang.T("Cancel"))
		s := buildForm(obj, f, opt)
		s.words = words
		s.create = al.Send(selButtons).Send(selObjectAtIndex, uint(0))
		al.Send(selSetAccessoryView, s.view)
		al.Send(selLayout)
		al.Send(selWindow).Send(selSetInitialFirst, s.name)
		s.ctx = ctx
		outer := openForm
		openForm = &s.formState
		defer func() { openForm = outer }()
		s.update()
		toFront(al.Send(selWindow))
		r := objc.Send[int](al, selRunModal)
		got = s.read()
		return r
	})
	if err != nil {
		return Form{}, err
	}
	if buttonIndex(resp) != 0 {
		return Form{}, ramdisk.ErrCancelled
	}
	return got, nil
}

// builtForm is the accessory view with its state.
type builtForm struct {
	formState
	view objc.ID
}

// buildForm makes the accessory view from layoutForm, filled from f; the
// text fields report typing to obj (controlTextDidChange:), the popups and
// the Folder… button send it their actions.
func buildForm(obj objc.ID, f Form, opt FormOptions) *builtForm {
	l := layoutForm(opt)
	b := &builtForm{formState: formState{opt: opt, folder: f.Folder}, view: newView("NSView", l.view)}
	add := func(v objc.ID, r rect) objc.ID {
		v.Send(selSetFrame, r)
		b.view.Send(selAddSubview, v)
		return v
	}
	field := func(r rect, text string) objc.ID {
		v := add(newView("NSTextField", r), r)
		v.Send(selSetStringValue, nsString(text))
		v.Send(selSetDelegateControl, obj)
		return v
	}
	popup := func(r rect, items []string, pick int) objc.ID {
		v := add(newPopup(r, items, pick), r)
		v.Send(selSetTarget, obj)
		v.Send(selSetAction, selFormChanged)
		return v
	}
	for _, r := range l.rows {
		add(class("NSTextField").Send(selLabelWithString, nsString(opt.label(r.kind))), r.label)
		switch r.kind {
		case rowName:
			b.name = field(r.control, f.Name)
		case rowSize:
			b.size = field(r.control, f.Size)
		case rowFS:
			labels := make([]string, len(opt.FileSystems))
			for i, fs := range opt.FileSystems {
				labels[i] = fs.Label()
			}
			b.fsPopup = popup(r.control, labels, fsIndex(opt.FileSystems, f.FS))
		case rowContents:
			labels := make([]string, len(ramdisk.ContentChoices))
			for i, c := range ramdisk.ContentChoices {
				labels[i] = opt.Lang.T(c.Label)
			}
			b.contents = popup(r.control, labels, ramdisk.ContentIndex(f.Contents, f.InPlace))
		case rowFolder:
			b.folderLabel = add(class("NSTextField").Send(selLabelWithString, nsString(f.Folder)), r.control)
			b.folderBt = add(class("NSButton").Send(selButtonWithTitle, nsString(opt.Lang.T("Folder…")), obj, selChooseFolder), r.button)
		}
	}
	b.wordsLabel = add(class("NSTextField").Send(selWrappingLabel, nsString("")), l.words)
	return b
}
