package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"syscall"
	"time"

	"rambar/i18n"
	"rambar/internal/signals"
	"rambar/ramdisk"
)

// contentsEvery is how often a save's progress is printed when stderr is not
// a terminal (a log, CI): saves report every file, logs want a line now and
// then.
const contentsEvery = 2 * time.Second

// progressLine returns show, which draws one progress line on stderr, and
// done, which ends it. On a terminal the line is redrawn in place and done
// clears it; elsewhere show prints at most one line every `every` (0: every
// message; work shorter than `every` prints nothing), and done prints the
// last message if any line was printed, so a log ends on the final figures.
func (a *App) progressLine(every time.Duration) (show func(string), done func()) {
	last := time.Now()
	printed, pending := false, ""
	show = func(s string) {
		if a.Interactive {
			fmt.Fprintf(a.Stderr, "\r%s\x1b[K", s)
			printed = true
			return
		}
		pending = s
		if time.Since(last) >= every {
			last = time.Now()
			fmt.Fprintln(a.Stderr, s)
			printed, pending = true, ""
		}
	}
	done = func() {
		switch {
		case a.Interactive && printed:
			io.WriteString(a.Stderr, "\r\x1b[K")
		case !a.Interactive && printed && pending != "":
			fmt.Fprintln(a.Stderr, pending)
		}
		printed, pending = false, ""
	}
	return show, done
}

// contentsProgress adapts progressLine to a save's, restore's or reclaim's
// progress: "Scratch: Saving… 45% (120 MiB of 260 MiB, 1,234 of 5,000 files)".
// quiet (--json: stdout is a document) shows none: fn is nil.
func (a *App) contentsProgress(quiet bool) (fn ramdisk.ProgressFunc, done func()) {
	if quiet {
		return nil, func() {}
	}
	show, done := a.progressLine(contentsEvery)
	return func(p ramdisk.Progress) {
		if p.FilesTotal == 0 && p.BytesTotal == 0 {
			return
		}
		show(p.Disk + ": " + progressText(a.say(), p))
	}, done
}

// progressFormats are the progress line of each phase, each a whole
// message: "Saving… 45% (1.2 GiB of 2.6 GiB, 4010 of 9000 files)".
var progressFormats = map[string]string{
	"saving":       i18n.N("Saving… %d%% (%s of %s, %d of %d files)"),
	"restoring":    i18n.N("Restoring… %d%% (%s of %s, %d of %d files)"),
	"loading":      i18n.N("Loading… %d%% (%s of %s, %d of %d files)"),
	"refreshing":   i18n.N("Refreshing… %d%% (%s of %s, %d of %d files)"),
	"copying out":  i18n.N("Copying out… %d%% (%s of %s, %d of %d files)"),
	"copying back": i18n.N("Copying back… %d%% (%s of %s, %d of %d files)"),
}

// progressText is a progress line in s's language (ramdisk.Progress.String
// in English, and for a phase it does not know).
func progressText(s speech, p ramdisk.Progress) string {
	f, ok := progressFormats[p.Phase]
	if !ok || s.english() {
		return p.String()
	}
	return s.T(f, p.Percent(), s.Size(ramdisk.Size(p.BytesDone)), s.Size(ramdisk.Size(p.BytesTotal)), p.FilesDone, p.FilesTotal)
}

// interruptible returns ctx cancelled by SIGINT, SIGTERM, SIGHUP (unless
// started under nohup) or SIGPIPE, so an
// operation on a disk stops and cleans up (a create whose fill is cut short
// ejects the disk again; a save leaves the previous one current) instead
// of dying half done. stop restores the default handling.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	if agentRequest(ctx) { // the agent's signals are its own; the client's Ctrl-C ends ctx
		return context.WithCancel(ctx)
	}
	return signal.NotifyContext(ctx, signals.Stop(syscall.SIGPIPE)...)
}

// interrupted marks err as a cancellation (exit 9) when ctx was ended by a signal.
func interrupted(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil && !errors.Is(err, ramdisk.ErrCancelled) {
		return fmt.Errorf("%w (interrupted): %v", ramdisk.ErrCancelled, err)
	}
	return err
}
