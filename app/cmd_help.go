package main

import (
	"context"
	"fmt"
	"rambar/i18n"
	"runtime"
)

// version is stamped at build time: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func init() {
	register(&command{Name: "help", Summary: i18n.N("show this help, or one command's flags and an example"),
		Args:    []arg{{Name: "COMMAND", Optional: true}, {Name: "SUBCOMMAND", Optional: true}},
		Example: "help create\nhelp preset add", Order: 90, Run: runHelp})
	register(&command{Name: "version", Summary: i18n.N("print RAMBar's version"), Example: "version", Order: 91, Run: runVersion})
}

func runHelp(ctx context.Context, a *App, in *input) error {
	if len(in.Args) == 0 {
		printHelp(a.Stdout, a.say())
		return nil
	}
	c := commands[in.Args[0]]
	if c == nil {
		return unknownCommand(in.Args[0])
	}
	if len(in.Args) == 2 {
		s := c.sub(in.Args[1])
		switch {
		case len(c.Subs) == 0:
			return usagef("%s has no sub-commands; see 'rambar help %s'", c.Name, c.Name)
		case s == nil:
			return unknownSub(c, in.Args[1])
		}
		c = s
	}
	printUsage(a.Stdout, a.say(), c)
	return nil
}

func runVersion(ctx context.Context, a *App, in *input) error {
	fmt.Fprintf(a.Stdout, "rambar %s (%s/%s, %s)\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return nil
}
