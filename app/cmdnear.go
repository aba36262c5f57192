package main

import (
	"strings"
	"unicode/utf8"
)

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
