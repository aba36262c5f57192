package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"rambar/i18n"
)

// helpWidth is the width every help page fits in.
const helpWidth = 80

// Help is made from the command table in the user's language: the table
// keeps each text in English (the catalog's key, marked with i18n.N where
// it is declared) and the pages translate it here. Command and flag names,
// placeholders and example command lines stay as they are.

// printUsage writes c's help page: usage, what it does, its arguments,
// sub-verbs and flags with their descriptions, and an example.
func printUsage(w io.Writer, p speech, c *command) {
	fmt.Fprintf(w, "%s\n\n", p.T("usage: rambar %s", c.synopsis()))
	about := []string{sentence(p, p.Text(c.Summary))}
	if c.Doc != "" {
		about = append(about, p.Text(c.Doc))
	}
	if len(c.Aliases) > 0 {
		about = append(about, p.T("Also spelled: %s.", strings.Join(c.Aliases, ", ")))
	}
	writeWrapped(w, strings.Join(about, p.sentenceGap()), "", "")
	if len(c.Subs) > 0 {
		fmt.Fprintf(w, "\n%s\n", p.T("commands:"))
		for _, s := range c.Subs {
			writeEntry(w, s.synopsis(), p.Text(s.Summary))
		}
		fmt.Fprintln(w, p.T("Run 'rambar %s COMMAND --help' for its flags.", c.Name))
	}
	if hasArgDocs(c) {
		fmt.Fprintf(w, "\n%s\n", p.T("arguments:"))
		for _, a := range c.Args {
			if a.Doc != "" {
				writeTwoColumns(w, "  "+a.Name, p.Text(a.Doc))
			}
		}
	}
	if len(c.Subs) == 0 {
		fmt.Fprintf(w, "\n%s\n", p.T("flags:"))
		for _, f := range append(c.flags(), helpFlag) {
			writeTwoColumns(w, "  "+f.label(), f.doc(p))
		}
	}
	if len(c.Refuses) > 0 {
		fmt.Fprintf(w, "\n%s\n", p.T("refused together (before anything is made):"))
		for _, r := range c.Refuses {
			writeWrapped(w, p.Text(r), "  ", "    ")
		}
	}
	if c.Example != "" {
		fmt.Fprintf(w, "\n%s\n", p.T("example:"))
		for _, l := range strings.Split(strings.TrimSpace(c.Example), "\n") {
			fmt.Fprintf(w, "  rambar %s\n", strings.TrimSpace(l))
		}
	}
}

// namesLine is the rule for letter case in names, as help says it.
var namesLine = i18n.N("names: letter case counts on Linux (Work and work are two disks, as their folders are); " +
	"on macOS, whose volumes ignore it, they are one disk.")

// printHelp writes the top-level help: every verb with its summary.
func printHelp(w io.Writer, p speech) {
	writeWrapped(w, p.T("RAMBar makes RAM disks, shows what they really cost in memory, and keeps their contents safe."), "", "")
	label := p.T("usage:")
	indent := strings.Repeat(" ", displayWidth(label))
	fmt.Fprintln(w)
	for i, l := range [][2]string{
		{"rambar", p.T("start the menu-bar app")},
		{"rambar COMMAND [ARGS]", p.T("run one command")},
		{"rambar help COMMAND", p.T("its flags, with an example (or: rambar COMMAND -h)")},
	} {
		head := indent
		if i == 0 {
			head = label
		}
		writeWrapped(w, l[1], fmt.Sprintf("%s %-23s", head, l[0]), strings.Repeat(" ", displayWidth(indent)+24))
	}
	fmt.Fprintf(w, "\n%s\n", p.T("commands:"))
	for _, c := range topLevel() {
		if !c.Hidden {
			writeEntry(w, c.synopsis(), p.Text(c.Summary))
		}
	}
	fmt.Fprint(w, "\n")
	writeWrapped(w, p.T("sizes: 512M, 4G, 1.5GiB, 4096MiB, 25%% (of memory); a bare number is MiB; units are binary."), "", "")
	writeWrapped(w, p.Text(namesLine), "", "")
}

func hasArgDocs(c *command) bool {
	for _, a := range c.Args {
		if a.Doc != "" {
			return true
		}
	}
	return false
}

// label is the flag as help shows it: "--fs FS", "--force", "-h, --help".
func (f flagSpec) label() string {
	s := "--" + f.Name
	if f.Name == "help" {
		s = "-h, " + s
	}
	if f.Kind != boolFlag {
		s += " " + f.Value
	}
	return s
}

// doc is the flag's description in p's language, with its default when
// that is not zero.
func (f flagSpec) doc(p speech) string {
	text := p.Text(f.Doc)
	if f.DocArg != "" {
		text = p.T(f.Doc, f.DocArg)
	}
	switch d := f.Default.(type) {
	case int:
		if d != 0 {
			return p.T("%s (default %d)", text, d)
		}
	case string:
		if d != "" {
			return p.T("%s (default %s)", text, d)
		}
	case time.Duration:
		if d != 0 {
			return p.T("%s (default %s)", text, d.String())
		}
	}
	return text
}

// writeEntry is one line of a command list: the synopsis, then the summary
// indented under it.
func writeEntry(w io.Writer, synopsis, summary string) {
	fmt.Fprintf(w, "  %s\n", synopsis)
	writeWrapped(w, summary, "      ", "      ")
}

// labelColumn is where flag and argument descriptions start.
const labelColumn = 24

// writeTwoColumns writes a label and its description wrapped beside it; a
// label too wide for the column gets the description on the next line.
func writeTwoColumns(w io.Writer, label, doc string) {
	pad := strings.Repeat(" ", labelColumn)
	if displayWidth(label)+2 > labelColumn {
		fmt.Fprintln(w, label)
		writeWrapped(w, doc, pad, pad)
		return
	}
	writeWrapped(w, doc, label+strings.Repeat(" ", labelColumn-displayWidth(label)), pad)
}

// writeWrapped writes text in words, first line after first, the others
// after rest, within helpWidth columns (a word longer than that stands alone).
func writeWrapped(w io.Writer, text, first, rest string) {
	for _, l := range wrap(text, first, rest, helpWidth) {
		fmt.Fprintln(w, l)
	}
}

func wrap(text, first, rest string, width int) []string {
	var lines []string
	line, empty := first, true
	for _, pc := range breakable(text) {
		gap := 0
		if pc.space {
			gap = 1
		}
		if !empty && displayWidth(line)+gap+displayWidth(pc.text) > width {
			lines = append(lines, line)
			line, empty = rest, true
		}
		if !empty && pc.space {
			line += " "
		}
		line += pc.text
		empty = false
	}
	return append(lines, line)
}

// piece is a run of text no line breaks inside; space tells whether a space
// came before it (a line broken there loses the space).
type piece struct {
	text  string
	space bool
}

// breakable cuts text where a line may break: at spaces, and beside a wide
// (Chinese or Japanese) character, whose text breaks without spaces, but
// never before closing punctuation nor after opening punctuation (and in
// the pseudo-locale's padding).
func breakable(text string) []piece {
	var out []piece
	for _, word := range strings.Fields(text) {
		start, space := 0, true
		var prev rune
		for i, r := range word {
			if i > start && breaksBetween(prev, r) {
				out = append(out, piece{word[start:i], space})
				start, space = i, false
			}
			prev = r
		}
		out = append(out, piece{word[start:], space})
	}
	return out
}

// noLineStart are the characters a Chinese or Japanese line never starts
// with: closing punctuation, small kana, the prolonged sound mark.
const noLineStart = "、。，．）」』】！？：；・ー％ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ々"

func breaksBetween(a, b rune) bool {
	if a == '·' && b == '·' { // the pseudo-locale's padding
		return true
	}
	if runeWidth(a) < 2 && runeWidth(b) < 2 {
		return false
	}
	return !strings.ContainsRune(noLineStart, b) && !strings.ContainsRune("（「『【", a) &&
		!strings.ContainsRune(",.;:)!?%", b)
}

// sentence makes a summary phrase a sentence: capital first, full stop last
// (a Chinese or Japanese one: 。).
func sentence(p speech, s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	stop := "."
	if p.cjk() {
		stop = "。"
	}
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "。") && !strings.HasSuffix(s, "？") {
		s += stop
	}
	return s
}
