package main

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// helpWidth is the width every help page fits in.
const helpWidth = 80

// printUsage writes c's help page: usage, what it does, its arguments,
// sub-verbs and flags with their descriptions, and an example.
func printUsage(w io.Writer, c *command) {
	fmt.Fprintf(w, "usage: rambar %s\n\n", c.synopsis())
	about := sentence(c.Summary)
	if c.Doc != "" {
		about += " " + c.Doc
	}
	if len(c.Aliases) > 0 {
		about += fmt.Sprintf(" Also spelled: %s.", strings.Join(c.Aliases, ", "))
	}
	writeWrapped(w, about, "", "")
	if len(c.Subs) > 0 {
		fmt.Fprint(w, "\ncommands:\n")
		for _, s := range c.Subs {
			writeEntry(w, s.synopsis(), s.Summary)
		}
		fmt.Fprintf(w, "Run 'rambar %s COMMAND --help' for its flags.\n", c.Name)
	}
	if hasArgDocs(c) {
		fmt.Fprint(w, "\narguments:\n")
		for _, a := range c.Args {
			if a.Doc != "" {
				writeTwoColumns(w, "  "+a.Name, a.Doc)
			}
		}
	}
	if len(c.Subs) == 0 {
		fmt.Fprint(w, "\nflags:\n")
		for _, f := range append(c.flags(), helpFlag) {
			writeTwoColumns(w, "  "+f.label(), f.doc())
		}
	}
	if len(c.Refuses) > 0 {
		fmt.Fprint(w, "\nrefused together (before anything is made):\n")
		for _, r := range c.Refuses {
			writeWrapped(w, r, "  ", "    ")
		}
	}
	if c.Example != "" {
		fmt.Fprint(w, "\nexample:\n")
		for _, l := range strings.Split(strings.TrimSpace(c.Example), "\n") {
			fmt.Fprintf(w, "  rambar %s\n", strings.TrimSpace(l))
		}
	}
}

// printHelp writes the top-level help: every verb with its summary.
func printHelp(w io.Writer) {
	writeWrapped(w, "RAMBar makes RAM disks, shows what they really cost in memory, and keeps their contents safe.", "", "")
	fmt.Fprint(w, `
usage: rambar                 start the menu-bar app
       rambar COMMAND [ARGS]  run one command
       rambar help COMMAND    its flags, with an example (or: rambar COMMAND -h)

commands:
`)
	for _, c := range topLevel() {
		if !c.Hidden {
			writeEntry(w, c.synopsis(), c.Summary)
		}
	}
	fmt.Fprint(w, "\n")
	writeWrapped(w, "sizes: 512M, 4G, 1.5GiB, 4096MiB, 25% (of memory); a bare number is MiB; units are binary.", "", "")
	writeWrapped(w, "names: "+nameCase+".", "", "")
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

// doc is the flag's description with its default when that is not zero.
func (f flagSpec) doc() string {
	switch d := f.Default.(type) {
	case int:
		if d != 0 {
			return fmt.Sprintf("%s (default %d)", f.Doc, d)
		}
	case string:
		if d != "" {
			return fmt.Sprintf("%s (default %s)", f.Doc, d)
		}
	case time.Duration:
		if d != 0 {
			return fmt.Sprintf("%s (default %s)", f.Doc, d)
		}
	}
	return f.Doc
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
	for _, word := range strings.Fields(text) {
		if !empty && displayWidth(line)+1+displayWidth(word) > width {
			lines = append(lines, line)
			line, empty = rest, true
		}
		if !empty {
			line += " "
		}
		line += word
		empty = false
	}
	return append(lines, line)
}

// sentence makes a summary phrase a sentence: capital first, full stop last.
func sentence(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

// nearest is the candidate closest to word by edit distance, when close
// enough to be a slip ("craete" → "create"), one the word begins
// uniquely, or the one the word starts with ("gooo" → "go"); "" when none is.
func nearest(word string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), c)
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	limit := 1 // two slips in a word of four or fewer letters is another word ("ntfs", "apfs")
	if utf8.RuneCountInString(word) >= 5 {
		limit = 2
	}
	if bestD >= 0 && bestD <= limit {
		return best
	}
	var prefixed []string
	for _, c := range candidates {
		if len(word) >= 2 && strings.HasPrefix(c, strings.ToLower(word)) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	// A word that starts with one candidate and goes on ("gooo" for go).
	var longer []string
	for _, c := range candidates {
		if len(c) >= 2 && strings.HasPrefix(strings.ToLower(word), c) {
			longer = append(longer, c)
		}
	}
	if len(longer) == 1 {
		return longer[0]
	}
	return ""
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours each cost one.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}
