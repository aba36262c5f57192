package i18n

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/text/language"
)

// Error is an error RAMBar words itself, said in the reader's language: it
// keeps its English format (the catalog's key) and its arguments. Its
// Error() is fmt.Errorf's text for them, so English output, --json and
// logs read as before, and it unwraps as fmt.Errorf's error does (%w, one
// or several), so errors.Is finds the classes it wraps.
type Error struct {
	Format string
	Args   []any
	err    error // fmt.Errorf(Format, Args...)
}

// Errorf is fmt.Errorf's error, translatable: format is its English text
// and the catalog's key (the catalog's tests find it).
func Errorf(format string, args ...any) error {
	e := &Error{Format: format, Args: args, err: fmt.Errorf(format, args...)}
	if _, one := e.err.(interface{ Unwrap() error }); one {
		return &wrapError{e}
	}
	return e
}

// New is a translatable error of a text without arguments (and without
// format verbs): an error class, compared by identity as errors.New's are.
func New(text string) error { return &Error{Format: text, err: errors.New(text)} }

// Error is the English text, as fmt.Errorf writes it.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap is the errors its format wraps with %w (none for an error made
// with New, or with no %w).
func (e *Error) Unwrap() []error {
	if u, ok := e.err.(interface{ Unwrap() []error }); ok {
		return u.Unwrap()
	}
	return nil
}

// wrapError is an Error that wraps one error, as fmt.Errorf's with one %w:
// errors.Unwrap gives that error.
type wrapError struct{ e *Error }

func (w *wrapError) Error() string { return w.e.Error() }

func (w *wrapError) Unwrap() error { return w.e.err.(interface{ Unwrap() error }).Unwrap() }

// As lets errors.As find the Error in a wrapError.
func (w *wrapError) As(target any) bool {
	if t, ok := target.(**Error); ok {
		*t = w.e
		return true
	}
	return false
}

// Translatable is the outermost translatable error in err's chain, if any.
func Translatable(err error) (*Error, bool) {
	var te *Error
	return te, errors.As(err, &te)
}

// Err is err's text in p's language: the outermost translatable sentence
// of its chain said whole (an argument that is itself an error is said by
// Err too; any other error inside, an OS error or a tool's output, stays
// as it is, like strerror). Words of plain wrappers around it ("save
// Build: …": a verb's and a disk's name, as typed; fmt.Errorf's "%w: %w")
// stay around it as they are, and each error they join is said so. An
// error with no translatable sentence, and any error in English, is its
// Error(): the English output stays fmt's, byte for byte.
func (p *Printer) Err(err error) string {
	if err == nil {
		return ""
	}
	if _, ok := Translatable(err); p == nil || p.Tag == language.English || !ok {
		return err.Error()
	}
	return p.say(err)
}

// say is err in p's language: its own sentence if it is translatable, else
// its English text with each error it wraps said in its place.
func (p *Printer) say(err error) string {
	if te, ok := own(err); ok {
		return p.sayError(te)
	}
	var inner []error
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		inner = []error{u.Unwrap()}
	case interface{ Unwrap() []error }:
		inner = u.Unwrap()
	}
	text, from := err.Error(), 0
	for _, e := range inner {
		if e == nil {
			continue
		}
		if _, ok := Translatable(e); !ok {
			continue
		}
		was := e.Error()
		i := strings.Index(text[from:], was)
		if i < 0 {
			continue
		}
		said := p.say(e)
		text = text[:from+i] + said + text[from+i+len(was):]
		from += i + len(said)
	}
	return text
}

// own is err's own translatable sentence (not one it wraps), if it has one.
func own(err error) (*Error, bool) {
	switch e := err.(type) {
	case *Error:
		return e, true
	case *wrapError:
		return e.e, true
	}
	var te *Error
	if a, ok := err.(interface{ As(any) bool }); ok && a.As(&te) {
		return te, true
	}
	return nil, false
}

// errorArgs are args with each error that holds a sentence of ours said
// in p's language (args itself when there is none, and in English).
func (p *Printer) errorArgs(args []any) []any {
	if p.Tag == language.English {
		return args
	}
	var out []any
	for i, a := range args {
		err, ok := a.(error)
		if !ok {
			continue
		}
		if _, ours := Translatable(err); !ours {
			continue
		}
		if out == nil {
			out = append([]any(nil), args...)
		}
		out[i] = p.say(err)
	}
	if out == nil {
		return args
	}
	return out
}

// sayError is e said in p's language, its error arguments said by Err.
func (p *Printer) sayError(e *Error) string {
	if len(e.Args) == 0 {
		return p.T(e.Format) // New's text has no verbs
	}
	args := make([]any, len(e.Args))
	for i, a := range e.Args {
		if ae, ok := a.(error); ok {
			a = p.Err(ae)
		}
		args[i] = a
	}
	return p.printer().Sprintf(e.Format, args...)
}

// wAsV is a format with each %w written %v: the catalog's printer, like
// fmt.Sprintf, knows no %w, and an error's translation keeps its source's
// verbs (the error argument is said as text).
func wAsV(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		j := verbEnd(s, i)
		v := s[i:j]
		if strings.HasSuffix(v, "w") {
			v = v[:len(v)-1] + "v"
		}
		b.WriteString(v)
		i = j - 1
	}
	return b.String()
}
