package main

import (
	"context"
	"fmt"
	"rambar/i18n"
	"slices"
	"sort"
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
	JSON    bool     // offers the shared --json
	Command bool     // takes a command line after "--" (try); it lands in input.Rest
	Example string   // one or more command lines, without "rambar "
	Refuses []string // combinations of its flags refused, listed in its help
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
	Doc     string // the English text, translated when help is printed
	DocArg  string // fills Doc's %s: words help does not translate (bench's row names)
}

func flagBool(name, doc string) flagSpec { return flagSpec{Name: name, Kind: boolFlag, Doc: doc} }
func flagString(name, value, doc string) flagSpec {
	return flagSpec{Name: name, Kind: stringFlag, Value: value, Doc: doc}
}
func flagInt(name, value string, def int, doc string) flagSpec {
	return flagSpec{Name: name, Kind: intFlag, Value: value, Default: def, Doc: doc}
}

// jsonFlag is the one --json; commands with JSON set offer it.
var jsonFlag = flagBool("json", i18n.N("print the result as JSON (a versioned document)"))

// helpFlag is understood by every command; it is listed last in help.
var helpFlag = flagSpec{Name: "help", Kind: boolFlag, Doc: i18n.N("show this help")}

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
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s
		}
	}
	return nil
}

// flags is what the command accepts, in help order.
func (c *command) flags() []flagSpec {
	fs := append([]flagSpec(nil), c.Flags...)
	if c.JSON {
		fs = append(fs, jsonFlag)
	}
	if delegated(c) {
		fs = append(fs, directFlag)
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

// usageErr is a usage error naming the command's synopsis and why (a
// zero text: no reason).
func (c *command) usageErr(why text) error {
	if why.format == "" {
		return usagef("usage: rambar %s; see 'rambar %s --help'", c.synopsis(), c.path())
	}
	return usagef("usage: rambar %s (%s); see 'rambar %s --help'", c.synopsis(), why, c.path())
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
func (in *input) usageErr(why text) error { return in.cmd.usageErr(why) }

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
