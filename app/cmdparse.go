package main

import (
	"strconv"
	"strings"
	"time"
)

// Parsing a command line against the table (cmdtable.go): which verb, its
// flags and positional arguments, and the errors in our own words.

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
			return nil, false, c.usageErr(msg("put the command after --"))
		}
		if len(in.Rest) == 0 || in.Rest[0] == "" {
			return nil, false, c.usageErr(msg("no command after --"))
		}
	}
	min, max := c.argRange()
	switch {
	case len(in.Args) < min:
		return nil, false, c.usageErr(msg("missing %s", c.Args[len(in.Args)].Name))
	case max >= 0 && len(in.Args) > max:
		return nil, false, c.usageErr(msg("unexpected %q", in.Args[max]))
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
		return nil, nil, c.usageErr(text{})
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
	if other, ok := otherToolsVerbs[strings.ToLower(verb)]; ok {
		return usagef("unknown command %q; did you mean %s?", verb, other)
	}
	if best := nearest(verb, visibleNames(topLevel())); best != "" {
		return usagef("unknown command %q; did you mean %s?", verb, best)
	}
	return usagef("unknown command %q; run 'rambar help'", verb)
}

// otherToolsVerbs are the words other tools (a shell, mount, docker…) use
// for what a RAMBar command does, and the command to suggest for each.
var otherToolsVerbs = map[string]string{
	"ls":      "list",
	"ps":      "list",
	"status":  "list (or info NAME)",
	"show":    "info",
	"df":      "list",
	"rm":      "eject (or forget NAME, which deletes its saved contents)",
	"remove":  "eject",
	"delete":  "eject (or forget NAME, which deletes its saved contents)",
	"umount":  "eject",
	"unmount": "eject",
	"detach":  "eject",
	"stop":    "eject",
	"mount":   "create NAME SIZE (or preset mount NAME)",
	"attach":  "create NAME SIZE",
	"new":     "create",
	"make":    "create",
	"mk":      "create",
	"add":     "create (or preset add)",
	"start":   "up (or just rambar, for the menu-bar app)",
	"backup":  "save",
	"sync":    "save",
	"load":    "restore",
}

func unknownSub(c *command, name string) error {
	if best := nearest(name, visibleNames(c.Subs)); best != "" {
		return usagef("unknown %s command %q; did you mean %s?", c.Name, name, best)
	}
	return usagef("unknown %s command %q; usage: rambar %s", c.Name, name, c.synopsis())
}
