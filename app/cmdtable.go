package main

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The command table. Every verb declares its positional arguments, flags,
// sub-verbs and an example here (each in its own cmd_<verb>.go), and Main
// parses a command line once against it: the run functions get parsed
// values and never see a flag set.
//
// RAMBar keeps its own table rather than github.com/spf13/cobra: the CLI
// needs one level of sub-verbs, four flag types, help pages, did-you-mean and
// flags anywhere among the arguments. That is a few hundred lines here,
// against a dependency (cobra and pflag) whose templates, persistent flags,
// hooks and generators we would not use, and whose own error wording we would
// have to rewrite anyway to keep Go's flag messages from the user.

// command is one CLI verb or sub-verb.
type command struct {
	Name    string
	Aliases []string // other names that run it ("remove" for "rm")
	Summary string   // a short phrase for the list in 'rambar help'
	Doc     string   // more about it, on its own help page (optional)
	Args    []arg    // positional arguments, in order
	Usage   string   // the synopsis after the verb, when Args cannot say it ("NAME... | --all")
	Flags   []flagSpec
	JSON    bool   // offers the shared --json
	Command bool   // takes a command line after "--" (try); it lands in input.Rest
	Example string // one or more command lines, without "rambar "
	Subs    []*command
	Order   int  // position in 'rambar help'
	Hidden  bool // not listed in 'rambar help'
	Run     func(ctx context.Context, a *App, in *input) error

	parent *command
}

// arg is one positional argument. Optional ones follow the required ones; a
// Repeat one is last.
type arg struct {
	Name     string // NAME, SIZE
	Optional bool
	Repeat   bool // takes any number (NAME...)
	Doc      string
}

// flagKind is the type of a flag's value.
type flagKind int

const (
	boolFlag flagKind = iota
	stringFlag
	intFlag
	durationFlag
)

// flagSpec declares one flag: --Name, or --Name VALUE.
type flagSpec struct {
	Name    string
	Kind    flagKind
	Value   string // what the value is, in help (FS, FOLDER, N)
	Default any    // nil: the zero value of its kind
	Doc     string
}

func flagBool(name, doc string) flagSpec { return flagSpec{Name: name, Kind: boolFlag, Doc: doc} }
func flagString(name, value, doc string) flagSpec {
	return flagSpec{Name: name, Kind: stringFlag, Value: value, Doc: doc}
}
func flagInt(name, value string, def int, doc string) flagSpec {
	return flagSpec{Name: name, Kind: intFlag, Value: value, Default: def, Doc: doc}
}
func flagDuration(name, value, doc string) flagSpec {
	return flagSpec{Name: name, Kind: durationFlag, Value: value, Doc: doc}
}

// jsonFlag is the one --json; commands with JSON set offer it.
var jsonFlag = flagBool("json", "print the result as JSON (a versioned document)")

// helpFlag is understood by every command; it is listed last in help.
var helpFlag = flagSpec{Name: "help", Kind: boolFlag, Doc: "show this help"}

var commands = map[string]*command{}

// register adds a verb and its sub-verbs to the table.
func register(c *command) {
	for _, n := range append([]string{c.Name}, c.Aliases...) {
		if _, dup := commands[n]; dup {
			panic("rambar: command registered twice: " + n)
		}
		commands[n] = c
	}
	for _, s := range c.Subs {
		s.parent = c
	}
}

// path is "preset add" for a sub-verb, "create" for a verb.
func (c *command) path() string {
	if c.parent != nil {
		return c.parent.Name + " " + c.Name
	}
	return c.Name
}

// sub finds a sub-verb by name or alias.
func (c *command) sub(name string) *command {
	for _, s := range c.Subs {
		if s.Name == name || contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// flags is what the command accepts, in help order.
func (c *command) flags() []flagSpec {
	fs := append([]flagSpec(nil), c.Flags...)
	if c.JSON {
		fs = append(fs, jsonFlag)
	}
	return fs
}

func (c *command) flag(name string) (flagSpec, bool) {
	for _, f := range c.flags() {
		if f.Name == name {
			return f, true
		}
	}
	return flagSpec{}, false
}

// argRange is how many positional arguments the command takes; max is -1
// for any number.
func (c *command) argRange() (min, max int) {
	for _, a := range c.Args {
		if !a.Optional {
			min++
		}
		if a.Repeat {
			return min, -1
		}
		max++
	}
	return min, max
}

// synopsis is what follows "rambar" in a usage line.
func (c *command) synopsis() string {
	parts := []string{c.path()}
	switch {
	case len(c.Subs) > 0:
		names := make([]string, len(c.Subs))
		for i, s := range c.Subs {
			names[i] = s.Name
		}
		parts[0] += " " + strings.Join(names, "|")
		for _, s := range c.Subs {
			if len(s.Args) > 0 || len(s.flags()) > 0 {
				parts = append(parts, "...")
				break
			}
		}
	case c.Usage != "":
		parts = append(parts, c.Usage)
	default:
		for _, a := range c.Args {
			s := a.Name
			if a.Repeat {
				s += "..."
			}
			if a.Optional {
				s = "[" + s + "]"
			}
			parts = append(parts, s)
		}
	}
	if len(c.Subs) == 0 && len(c.flags()) > 0 {
		parts = append(parts, "[flags]")
	}
	if c.Command {
		parts = append(parts, "-- COMMAND...")
	}
	return strings.Join(parts, " ")
}

// usageErr is a usage error naming the command's synopsis and why.
func (c *command) usageErr(why string) error {
	if why != "" {
		why = " (" + why + ")"
	}
	return usagef("usage: rambar %s%s; see 'rambar %s --help'", c.synopsis(), why, c.path())
}

// input is one parsed command line: positional arguments and flag values.
type input struct {
	cmd  *command
	Args []string // positional arguments, count already checked
	Rest []string // the command line after "--", for commands that take one
	vals map[string]any
	set  map[string]bool
}

// Bool, String, Int and Duration return a declared flag's value, given or
// default. They return pointers, as the flag package does, so a run
// function reads *force. Asking for an undeclared flag is a bug and panics.
func (in *input) Bool(name string) *bool              { return flagValue[bool](in, name) }
func (in *input) String(name string) *string          { return flagValue[string](in, name) }
func (in *input) Int(name string) *int                { return flagValue[int](in, name) }
func (in *input) Duration(name string) *time.Duration { return flagValue[time.Duration](in, name) }

// Set tells whether the flag was given on the command line.
func (in *input) Set(name string) bool { return in.set[name] }

// usageErr is the command's usage error.
func (in *input) usageErr(why string) error { return in.cmd.usageErr(why) }

func flagValue[T any](in *input, name string) *T {
	p, ok := in.vals[name].(*T)
	if !ok {
		panic(fmt.Sprintf("rambar %s: flag --%s is not declared as %T", in.cmd.path(), name, *new(T)))
	}
	return p
}

// newInput holds every declared flag at its default.
func newInput(c *command) *input {
	in := &input{cmd: c, vals: map[string]any{}, set: map[string]bool{}}
	for _, f := range c.flags() {
		switch f.Kind {
		case boolFlag:
			in.vals[f.Name] = new(bool)
		case stringFlag:
			v, _ := f.Default.(string)
			in.vals[f.Name] = &v
		case intFlag:
			v, _ := f.Default.(int)
			in.vals[f.Name] = &v
		case durationFlag:
			v, _ := f.Default.(time.Duration)
			in.vals[f.Name] = &v
		}
	}
	return in
}

// parse reads args against c: flags anywhere among the positional arguments
// (`create Scratch 4G --fs hfs+` and `create --fs hfs+ Scratch 4G`), a lone
// "--" ends flags, and "-1G" is a positional argument (a bad size, reported
// as such). help is true when -h or --help was given: nothing else is checked.
func parse(c *command, args []string) (in *input, help bool, err error) {
	in = newInput(c)
	dashdash := false
	for i := 0; i < len(args); i++ {
		s := args[i]
		if s == "--" {
			dashdash = true
			if c.Command {
				in.Rest = args[i+1:]
			} else {
				in.Args = append(in.Args, args[i+1:]...)
			}
			break
		}
		if s == "-" || !strings.HasPrefix(s, "-") || isNegativeNumber(s) {
			in.Args = append(in.Args, s)
			continue
		}
		tok, val, hasVal := strings.Cut(s, "=")
		name := strings.TrimPrefix(strings.TrimPrefix(tok, "-"), "-")
		if name == "h" || name == "help" {
			return in, true, nil
		}
		f, ok := c.flag(name)
		if !ok || name == "" || name[0] == '-' {
			return nil, false, unknownFlag(c, tok)
		}
		if f.Kind != boolFlag && !hasVal {
			if i+1 >= len(args) {
				return nil, false, usagef("%s: %s needs a value (%s); see 'rambar %s --help'", c.path(), tok, f.Value, c.path())
			}
			i++
			val = args[i]
		}
		if err := in.setFlag(f, tok, val, hasVal); err != nil {
			return nil, false, err
		}
	}
	if c.Command {
		if !dashdash {
			return nil, false, c.usageErr("put the command after --")
		}
		if len(in.Rest) == 0 || in.Rest[0] == "" {
			return nil, false, c.usageErr("no command after --")
		}
	}
	min, max := c.argRange()
	switch {
	case len(in.Args) < min:
		return nil, false, c.usageErr("missing " + c.Args[len(in.Args)].Name)
	case max >= 0 && len(in.Args) > max:
		return nil, false, c.usageErr(fmt.Sprintf("unexpected %q", in.Args[max]))
	}
	return in, false, nil
}

// setFlag stores one flag's value; tok is the flag as typed, for errors.
func (in *input) setFlag(f flagSpec, tok, val string, hasVal bool) error {
	bad := func(want string) error {
		return usagef("%s: %s %q: invalid value, want %s", in.cmd.path(), tok, val, want)
	}
	switch f.Kind {
	case boolFlag:
		b := true
		if hasVal {
			var err error
			if b, err = strconv.ParseBool(val); err != nil {
				return bad("true or false")
			}
		}
		*in.vals[f.Name].(*bool) = b
	case stringFlag:
		*in.vals[f.Name].(*string) = val
	case intFlag:
		n, err := strconv.ParseInt(val, 0, strconv.IntSize)
		if err != nil {
			return bad("a whole number")
		}
		*in.vals[f.Name].(*int) = int(n)
	case durationFlag:
		d, err := time.ParseDuration(val)
		if err != nil {
			return bad("a duration like 30s, 10m or 1h")
		}
		*in.vals[f.Name].(*time.Duration) = d
	}
	in.set[f.Name] = true
	return nil
}

// isNegativeNumber tells "-1G" (a bad size, reported as such) from a flag.
func isNegativeNumber(s string) bool {
	return len(s) > 1 && s[0] == '-' && (s[1] >= '0' && s[1] <= '9' || s[1] == '.')
}

// unknownFlag reports a flag c does not take, as the user typed it, with the
// nearest one it does take.
func unknownFlag(c *command, tok string) error {
	var names []string
	for _, f := range append(c.flags(), helpFlag) {
		names = append(names, f.Name)
	}
	name := strings.TrimLeft(tok, "-")
	if best := nearest(name, names); best != "" {
		return usagef("%s: unknown flag %s; did you mean --%s?", c.path(), tok, best)
	}
	return usagef("%s: unknown flag %s; see 'rambar %s --help'", c.path(), tok, c.path())
}

// resolve finds the verb (and sub-verb) args name and returns it with the
// arguments that follow.
func resolve(args []string) (*command, []string, error) {
	verb := args[0]
	switch verb {
	case "-h", "-help", "--help":
		verb = "help"
	case "-v", "-version", "--version":
		verb = "version"
	}
	c, ok := commands[verb]
	if !ok {
		return nil, nil, unknownCommand(verb)
	}
	rest := args[1:]
	if len(c.Subs) == 0 {
		return c, rest, nil
	}
	if len(rest) == 0 {
		return nil, nil, c.usageErr("")
	}
	if strings.HasPrefix(rest[0], "-") {
		return c, rest, nil // --help, or a flag the group does not take
	}
	s := c.sub(rest[0])
	if s == nil {
		return nil, nil, unknownSub(c, rest[0])
	}
	return s, rest[1:], nil
}

// unknownCommand reports a verb the table does not have, with the nearest
// one it has.
func unknownCommand(verb string) error {
	if strings.HasPrefix(verb, "-") && !isNegativeNumber(verb) {
		return usagef("unknown flag %s; run 'rambar help'", verb)
	}
	if best := nearest(verb, visibleNames(topLevel())); best != "" {
		return usagef("unknown command %q; did you mean %s?", verb, best)
	}
	return usagef("unknown command %q; run 'rambar help'", verb)
}

func unknownSub(c *command, name string) error {
	if best := nearest(name, visibleNames(c.Subs)); best != "" {
		return usagef("unknown %s command %q; did you mean %s?", c.Name, name, best)
	}
	return usagef("unknown %s command %q; usage: rambar %s", c.Name, name, c.synopsis())
}

// topLevel is every verb once, in help order.
func topLevel() []*command {
	seen := map[*command]bool{}
	var cs []*command
	for _, c := range commands {
		if !seen[c] {
			seen[c] = true
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Order != cs[j].Order {
			return cs[i].Order < cs[j].Order
		}
		return cs[i].Name < cs[j].Name
	})
	return cs
}

func visibleNames(cs []*command) []string {
	var names []string
	for _, c := range cs {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return names
}
