package cocoa

import (
	"math"
	"structs"
	"unicode"

	"rambar/i18n"
)

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

// rowLabels are the rows' labels, in English (the catalog's keys).
var rowLabels = map[rowKind]string{
	rowName:     i18n.N("Name:"),
	rowSize:     i18n.N("Size:"),
	rowFS:       i18n.N("File system:"),
	rowContents: i18n.N("Contents:"),
	rowFolder:   i18n.N("Folder:"),
}

// label is a row's label in the form's language.
func (o FormOptions) label(k rowKind) string { return o.Lang.T(rowLabels[k]) }

// textWidth estimates how wide AppKit's system font (13 pt) draws s: an
// East Asian wide character takes about a square, a Latin one about half
// of it (a little more, so an estimate errs towards room).
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r >= 0x3000 && r <= 0x303f || r >= 0xff00 && r <= 0xffef:
			w += 13
		default:
			w += 7.5
		}
	}
	return w
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
	formWidth     = 400.0
	minLabelWidth = 96.0
	minControl    = 296.0 // the narrowest a field or popup gets
	rowHeight     = 24.0
	rowGap        = 8.0
	wordsHeight   = 110.0
	minButton     = 90.0
)

// layoutForm places the rows opt asks for, top to bottom, and the words.
// The label column is as wide as the longest label in the form's language
// needs (at least 96 pt), the Folder… button as wide as its title, and the
// window grows to keep the controls at least minControl wide: a longer
// language (German, the pseudo-locale) widens the window, it cuts nothing.
func layoutForm(opt FormOptions) formLayout {
	kinds := []rowKind{rowName, rowSize}
	if len(opt.FileSystems) > 1 {
		kinds = append(kinds, rowFS)
	}
	if opt.Contents {
		kinds = append(kinds, rowContents, rowFolder)
	}
	labelWidth := minLabelWidth
	for _, k := range kinds {
		labelWidth = max(labelWidth, math.Ceil(textWidth(opt.label(k)))+8)
	}
	buttonWidth := max(minButton, math.Ceil(textWidth(opt.Lang.T("Folder…")))+32)
	controlInset := labelWidth + 8
	width := max(formWidth, controlInset+minControl+buttonWidth+8)
	height := wordsHeight + float64(len(kinds))*(rowHeight+rowGap)
	l := formLayout{view: mkRect(0, 0, width, height), words: mkRect(0, 0, width, wordsHeight)}
	for i, k := range kinds {
		y := height - float64(i+1)*(rowHeight+rowGap) + rowGap
		r := row{
			kind:    k,
			label:   mkRect(0, y+2, labelWidth, rowHeight-4),
			control: mkRect(controlInset, y, width-controlInset, rowHeight),
		}
		if k == rowFolder {
			r.control.W -= buttonWidth + 8
			r.button = mkRect(width-buttonWidth, y, buttonWidth, rowHeight)
		}
		l.rows = append(l.rows, r)
	}
	return l
}

func mkRect(x, y, w, h float64) rect { return rect{X: x, Y: y, W: w, H: h} }
