package main

import (
	"io"

	"rambar/internal/textwidth"
)

// columns is a tabwriter for tables that show names (textwidth.Columns):
// each column is as wide as its widest cell in display width plus two
// spaces.
type columns = textwidth.Columns

func newColumns(w io.Writer) *columns { return textwidth.NewColumns(w) }

// displayWidth is how many terminal columns s takes (textwidth.Width).
func displayWidth(s string) int { return textwidth.Width(s) }

// runeWidth is how many terminal columns r takes: 0, 1 or 2.
func runeWidth(r rune) int { return textwidth.RuneWidth(r) }
