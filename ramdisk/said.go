package ramdisk

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Said is a sentence a domain package says to people (a disk's note, what
// is known of a disk's maker), kept so that a front end can say it in the
// user's language: its English Text, which --json, records and logs hold,
// and the Format and Args it was made from. The format is the catalog's
// key; an argument that is itself a Said is said first. A Said without a
// Format (an error's English detail) is its Text in every language. Its
// JSON is its Text.
type Said struct {
	Text   string
	Format string
	Args   []any
}

// Sayf is a Said made from a format (English, the catalog's key) and its
// arguments.
func Sayf(format string, args ...any) Said {
	return Said{Text: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// SayCount is a Said that counts count (a %d among args): its English
// text is made from one when count is 1, else from other, which is the
// catalog's key (its plural forms are the catalog's, by the language's
// rules).
func SayCount(count int, one, other string, args ...any) Said {
	text := fmt.Sprintf(other, args...)
	if count == 1 {
		text = fmt.Sprintf(one, args...)
	}
	return Said{Text: text, Format: other, Args: args}
}

// Plain is an English text said as it is in every language: an error's
// detail, a tool's words.
func Plain(text string) Said { return Said{Text: text} }

// String is the English text.
func (s Said) String() string { return s.Text }

// MarshalJSON writes the English text.
func (s Said) MarshalJSON() ([]byte, error) { return json.Marshal(s.Text) }

// UnmarshalJSON reads an English text (a record's): it is Plain.
func (s *Said) UnmarshalJSON(b []byte) error {
	*s = Said{}
	return json.Unmarshal(b, &s.Text)
}

// WarningNote begins a Volume note the user must see, which the menu shows
// as a notification: a create that found work kept only in an old
// snapshot, say.
const WarningNote = "warning: "

// Warn is a note the user must see (WarningNote, then s).
func Warn(s Said) Said { return Sayf(WarningNote+"%s", s) }

// Warning is what a note the user must see says after WarningNote, and
// whether it is one.
func (s Said) Warning() (Said, bool) {
	if s.Format == WarningNote+"%s" && len(s.Args) == 1 {
		if in, ok := s.Args[0].(Said); ok {
			return in, true
		}
	}
	if rest, ok := strings.CutPrefix(s.Text, WarningNote); ok {
		return Plain(rest), true
	}
	return Said{}, false
}

// Texts are the English texts of notes, for --json and logs.
func Texts(ss []Said) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Text
	}
	return out
}
