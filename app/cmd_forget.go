package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"rambar/disks"
	"rambar/i18n"

	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "forget", Summary: i18n.N("delete the saved contents of a disk name (every snapshot)"),
		Doc: i18n.N("Asks first on a terminal; --yes skips the question (needed when not on a terminal). " +
			"Refused while a disk of that name is mounted and kept: eject it first."),
		Args:    []arg{{Name: "NAME", Doc: i18n.N("a name whose contents were kept or mirrored")}},
		Flags:   []flagSpec{flagBool("yes", i18n.N("do not ask"))},
		Example: "forget Work\nforget Work --yes", Order: 43, Run: runForget})
}

func runForget(ctx context.Context, a *App, in *input) error {
	yes, name := in.Bool("yes"), in.Args[0]
	if err := ramdisk.ValidateName(name); err != nil {
		return err
	}
	svc, err := a.service()
	if err != nil {
		return err
	}
	sv, err := svc.CanForget(ctx, name)
	if errors.Is(err, disks.ErrNothingSaved) {
		return notFoundError{err}
	}
	if err != nil {
		return contentsErr(err)
	}
	if !*yes {
		if !a.AskOK {
			return usagef("forget %s deletes %s of saved contents in %s: add --yes to do it when not on a terminal",
				name, ramdisk.Plural(sv.Snapshots, "snapshot"), sv.Dir)
		}
		q := fmt.Sprintf("Forget the saved contents of %s (%s, %s in %s)? [y/N] ", sv.Name,
			ramdisk.Plural(sv.Snapshots, "snapshot"), ramdisk.Size(sv.Bytes).Short(), sv.Dir)
		if !ask(a.Stderr, a.Stdin, q) {
			return fmt.Errorf("forget %s: nothing deleted: %w", name, ramdisk.ErrCancelled)
		}
	}
	sv, err = svc.Forget(ctx, name)
	if err != nil {
		return contentsErr(err)
	}
	fmt.Fprintf(a.Stdout, "Forgot the saved contents of %s (%s, %s)\n", sv.Name, ramdisk.Plural(sv.Snapshots, "snapshot"), ramdisk.Size(sv.Bytes).Short())
	return nil
}

// ask writes q and reads one line: yes only for "y" or "yes".
func ask(w io.Writer, r io.Reader, q string) bool {
	fmt.Fprint(w, q)
	line, _ := bufio.NewReader(io.LimitReader(r, 256)).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}
