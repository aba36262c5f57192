package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
)

// version is stamped at build time: -ldflags "-X main.version=$(git describe)".
var version = "dev"

func init() {
	register(&command{Name: "help", Args: "[COMMAND]", Summary: "show this help, or one command's", Order: 90, Run: runHelp})
	register(&command{Name: "version", Summary: "print RAMBar's version", Order: 91, Run: runVersion})
}

func runHelp(ctx context.Context, a *App, args []string) error {
	if len(args) == 1 {
		c, ok := commands[args[0]]
		if !ok {
			return usagef("unknown command %q", args[0])
		}
		fmt.Fprintf(a.Stdout, "usage: rambar %s %s\n\n%s\n", c.Name, c.Args, c.Summary)
		return nil
	}
	fmt.Fprint(a.Stdout, `RAMBar makes RAM disks, shows what they really cost in memory, and keeps their contents safe.

usage: rambar                 start the menu-bar app
       rambar COMMAND [ARGS]  run one command

commands:
`)
	for _, c := range sortedCommands() {
		fmt.Fprintf(a.Stdout, "  %s\n      %s\n", strings.TrimSpace(c.Name+" "+c.Args), c.Summary)
	}
	fmt.Fprint(a.Stdout, `
sizes: 512M, 4G, 1.5GiB, 4096MiB, 25% (of memory); a bare number is MiB; units are binary.
`)
	return nil
}

func runVersion(ctx context.Context, a *App, args []string) error {
	fmt.Fprintf(a.Stdout, "rambar %s (%s/%s, %s)\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
	return nil
}
