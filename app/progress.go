package main

import (
	"fmt"
	"io"
	"time"

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
func (a *App) contentsProgress() (fn ramdisk.ProgressFunc, done func()) {
	show, done := a.progressLine(contentsEvery)
	return func(p ramdisk.Progress) {
		if p.FilesTotal == 0 && p.BytesTotal == 0 {
			return
		}
		show(p.Disk + ": " + p.String())
	}, done
}
