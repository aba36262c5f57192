package i18n

import "fmt"

// Speaker says a message in one language: format is its English text (the
// catalog's key), and a counting message takes the form its count needs.
// The CLI's speech and *Printer are Speakers; a domain package that words
// a report for a person (bench's tables, selftest's summary) takes one,
// nil meaning English as fmt writes it (Source).
type Speaker interface {
	T(format string, args ...any) string
}

// Source says a message in English exactly as fmt writes it (no digit
// grouping), a counting message in its form for its count: the text of
// the CLI in English, and of what stays English (--json, files, logs).
func Source(format string, args ...any) string {
	return fmt.Sprintf(SourceFormat(format, args...), args...)
}

// Say says a message through sp, or in English as fmt writes it (Source)
// when sp is nil: how a domain package that words a report itself speaks.
func Say(sp Speaker, format string, args ...any) string {
	if sp == nil {
		return Source(format, args...)
	}
	return sp.T(format, args...)
}
