package i18n

import (
	"strings"
	"unicode/utf8"
)

// accents are the pseudo-locale's letters: each ASCII letter with a mark,
// still readable.
var accents = map[rune]rune{
	'a': 'á', 'b': 'ƀ', 'c': 'ç', 'd': 'ð', 'e': 'é', 'f': 'ƒ', 'g': 'ĝ', 'h': 'ĥ', 'i': 'í', 'j': 'ĵ', 'k': 'ķ', 'l': 'ĺ', 'm': 'ɱ',
	'n': 'ñ', 'o': 'ö', 'p': 'þ', 'q': 'ǫ', 'r': 'ŕ', 's': 'š', 't': 'ţ', 'u': 'û', 'v': 'ṽ', 'w': 'ŵ', 'x': 'ẋ', 'y': 'ý', 'z': 'ž',
	'A': 'Å', 'B': 'Ɓ', 'C': 'Ç', 'D': 'Ð', 'E': 'É', 'F': 'Ƒ', 'G': 'Ĝ', 'H': 'Ĥ', 'I': 'Î', 'J': 'Ĵ', 'K': 'Ķ', 'L': 'Ļ', 'M': 'Ṁ',
	'N': 'Ñ', 'O': 'Ö', 'P': 'Þ', 'Q': 'Ǫ', 'R': 'Ŕ', 'S': 'Š', 'T': 'Ţ', 'U': 'Û', 'V': 'Ṽ', 'W': 'Ŵ', 'X': 'Ẋ', 'Y': 'Ý', 'Z': 'Ž',
}

// PseudoOpen and PseudoClose mark a pseudo-localized message's ends: a
// text cut by a layout loses its closing mark.
const (
	PseudoOpen  = "⟦"
	PseudoClose = "⟧"
)

// pseudoText accents s outside its format verbs (%s, %[2]d, %.1f, %%) and
// pads it to at least 140% of its length.
func pseudoText(s string) string {
	var b strings.Builder
	b.WriteString(PseudoOpen)
	for i := 0; i < len(s); {
		if s[i] == '%' {
			j := verbEnd(s, i)
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if a, ok := accents[r]; ok {
			r = a
		}
		b.WriteRune(r)
		i += n
	}
	n := utf8.RuneCountInString(s)
	pad := (n*4 + 9) / 10
	if pad < 1 {
		pad = 1
	}
	b.WriteString(" ")
	b.WriteString(strings.Repeat("·", pad))
	b.WriteString(PseudoClose)
	return b.String()
}

func pseudoEntry(e entry) entry {
	if e.Plural == nil {
		return entry{Text: pseudoText(e.Text)}
	}
	out := entry{Arg: e.Arg, Plural: map[string]string{}}
	for k, v := range e.Plural {
		out.Plural[k] = pseudoText(v)
	}
	return out
}

// verbEnd is the index just past the format verb starting at s[i] == '%'.
func verbEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && strings.IndexByte("+-# 0123456789.[]*", s[j]) >= 0 {
		j++
	}
	if j < len(s) {
		_, n := utf8.DecodeRuneInString(s[j:])
		j += n
	}
	return j
}

// Verbs are a text's format verbs, in order, without their argument
// indexes: "%[2]s of %d" has "%s", "%d".
func Verbs(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := verbEnd(s, i)
		v := s[i:j]
		if k := strings.IndexByte(v, '['); k >= 0 {
			if e := strings.IndexByte(v[k:], ']'); e >= 0 {
				v = v[:k] + v[k+e+1:]
			}
		}
		out = append(out, v)
		i = j - 1
	}
	return out
}
