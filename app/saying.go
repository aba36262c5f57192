package main

import "errors"

// text is a message said when it is printed, in the language of whoever
// reads it: its English format (the catalog's key) and its arguments. An
// argument that is itself a text is said in the same language, so a usage
// line and the reason inside it are translated whole, each by its own
// message, never pieced together from fragments.
type text struct {
	format string
	args   []any
}

// msg is a text to say later; the catalog's tests find its format.
func msg(format string, args ...any) text { return text{format, args} }

// say is t in s's language.
func (t text) say(s speech) string {
	if t.format == "" {
		return ""
	}
	args := make([]any, len(t.args))
	for i, a := range t.args {
		if inner, ok := a.(text); ok {
			a = inner.say(s)
		}
		args[i] = a
	}
	if len(args) == 0 {
		return s.Text(t.format)
	}
	return s.T(t.format, args...)
}

// String is t in English.
func (t text) String() string { return t.say(english()) }

// usageError is a misuse of the CLI (unknown verb, missing argument, bad
// flag); it exits with exitUsage and is said in the user's language.
type usageError struct{ text text }

func (e *usageError) Error() string { return e.text.String() }

// errUsage can be wrapped (fmt.Errorf("%w: rambar x ARGS", errUsage)) to
// mark a usage error; the message then reads "usage: rambar x ARGS".
var errUsage error = &usageError{text{format: "usage"}}

// usagef returns a usageError; the catalog's tests find its format.
func usagef(format string, args ...any) error { return &usageError{msg(format, args...)} }

// sayUsage is err's line in s's language when err is a usage error of our
// own (not one wrapped in more words), and whether it is.
func sayUsage(s speech, err error) (string, bool) {
	var ue *usageError
	if !errors.As(err, &ue) || ue.Error() != err.Error() || ue == errUsage {
		return "", false
	}
	return ue.text.say(s), true
}
