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
			return usagef("forget %s deletes %d snapshots of saved contents in %s: add --yes to do it when not on a terminal",
				name, sv.Snapshots, sv.Dir)
		}
		say := a.say()
		q := say.T("Forget the saved contents of %s (%d snapshots, %s in %s)? [y/N]", sv.Name,
			sv.Snapshots, say.Size(ramdisk.Size(sv.Bytes)), sv.Dir) + " "
		if !ask(a.Stderr, a.Stdin, q) {
			return fmt.Errorf("forget %s: nothing deleted: %w", name, ramdisk.ErrCancelled)
		}
	}
	sv, err = svc.Forget(ctx, name)
	if err != nil {
		return contentsErr(err)
	}
	fmt.Fprintln(a.Stdout, a.say().T("Forgot the saved contents of %s (%d snapshots, %s)", sv.Name, sv.Snapshots, a.say().Size(ramdisk.Size(sv.Bytes))))
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
