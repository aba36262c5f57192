package cocoa

import "structs"

// The New RAM Disk window's accessory view, laid out in Go (plain frames,
// no Auto Layout): a label and a control per row, the plan's words below.
// AppKit's coordinates start at the bottom left.

// rect is an NSRect (CGRect): origin then size, in CGFloat (float64 on
// every 64-bit Mac). HostLayout keeps the C struct's layout, so purego
// passes it by value to initWithFrame: (four doubles: in registers on
// arm64, in memory on amd64).
type rect struct {
	_          structs.HostLayout
	X, Y, W, H float64
}

// rowKind is one row of the form.
type rowKind int

const (
	rowName rowKind = iota
	rowSize
	rowFS
	rowContents
	rowFolder
)

// rowLabels are the rows' labels.
var rowLabels = map[rowKind]string{
	rowName:     "Name:",
	rowSize:     "Size:",
	rowFS:       "File system:",
	rowContents: "Contents:",
	rowFolder:   "Folder:",
}

type row struct {
	kind           rowKind
	label, control rect
	// button is the Folder… button of the folder row (zero elsewhere).
	button rect
}

type formLayout struct {
	view  rect
	rows  []row
	words rect
}

const (
	formWidth    = 400.0
	labelWidth   = 96.0
	rowHeight    = 24.0
	rowGap       = 8.0
	wordsHeight  = 110.0
	buttonWidth  = 90.0
	controlInset = labelWidth + 8
)

// layoutForm places the rows opt asks for, top to bottom, and the words.
func layoutForm(opt FormOptions) formLayout {
	kinds := []rowKind{rowName, rowSize}
	if len(opt.FileSystems) > 1 {
		kinds = append(kinds, rowFS)
	}
	if opt.Contents {
		kinds = append(kinds, rowContents, rowFolder)
	}
	height := wordsHeight + float64(len(kinds))*(rowHeight+rowGap)
	l := formLayout{view: mkRect(0, 0, formWidth, height), words: mkRect(0, 0, formWidth, wordsHeight)}
	for i, k := range kinds {
		y := height - float64(i+1)*(rowHeight+rowGap) + rowGap
		r := row{
			kind:    k,
			label:   mkRect(0, y+2, labelWidth, rowHeight-4),
			control: mkRect(controlInset, y, formWidth-controlInset, rowHeight),
		}
		if k == rowFolder {
			r.control.W -= buttonWidth + 8
			r.button = mkRect(formWidth-buttonWidth, y, buttonWidth, rowHeight)
		}
		l.rows = append(l.rows, r)
	}
	return l
}

func mkRect(x, y, w, h float64) rect { return rect{X: x, Y: y, W: w, H: h} }
