package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"

	"rambar/disks"
	"rambar/i18n"
	"rambar/ramdisk"
	"rambar/selftest"
)

func init() {
	register(&command{Name: "selftest", Summary: i18n.N("check this machine end to end: disks and their memory, saving, eject, the menu bar, notifications, the login item"),
		Doc: i18n.N("Runs each part of RAMBar for real and writes report.json, summary.txt and the doctor's output into a new folder, " +
			"then prints the summary; exits 1 if any check failed. It makes and removes its own hidden disks (64 MiB, 4 GiB and a kept one " +
			"in a private store), briefly shows the menu-bar icon and a dialog that closes by itself, and may post one notification. " +
			"Nothing of your own disks or saved contents is touched. The app started with --selftest does the same."),
		Flags: []flagSpec{flagString("out", "DIR", i18n.N("write the report into DIR (default: a new folder beside RAMBar's data)")),
			flagBool("notify", i18n.N("also tell the outcome in a notification (the app started with --selftest does)"))},
		Example: "selftest\nselftest --out ~/rambar-selftest", Order: 92, Run: runSelftest})
}

// runSelftest is `rambar selftest`: the engine and store checks of package
// selftest, the native side's checks while the real menu bar runs, and
// doctor's output, in one report. What it made is removed at the end, on
// Ctrl-C or SIGTERM too; after a kill -9 the next run removes it.
func runSelftest(ctx context.Context, a *App, in *input) error {
	if a.Paths.Data == "" {
		return fmt.Errorf("selftest: %w", errNoDataFolder)
	}
	e, err := a.Engine()
	if err != nil {
		return err
	}
	out := *in.String("out")
	if out == "" {
		out = filepath.Join(filepath.Dir(a.Paths.Data), "selftest-"+a.Now().Format("20060102-150405"))
	}
	if out, err = filepath.Abs(out); err != nil {
		return usagef("--out: %v", err)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("selftest: %w", err)
	}
	rep := selftest.NewReport(version, runtime.GOOS, runtime.GOARCH, out, func(c selftest.Check) {
		fmt.Fprintf(a.Stderr, "rambar: selftest:%s\n", selftest.Line(c))
	})
	rep.System = systemRelease(ctx)
	r := selftest.New(e, filepath.Join(a.Paths.Data, "selftest"))
	r.Logf = func(format string, args ...any) { fmt.Fprintf(a.Stderr, "rambar: selftest: "+format+"\n", args...) }
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cleaned := false
	defer func() { // even after a panic in a check, nothing of the run stays
		if !cleaned {
			r.Cleanup(ctx)
		}
	}()
	fmt.Fprintf(a.Stderr, "rambar: selftest: writing the report into %s\n", out)
	rep.Add(r.CleanLeftovers(ctx))
	rep.Add(r.Disks(ctx)...)
	rep.Add(r.Kept(ctx))
	rep.Add(r.Feed(ctx))
	rep.Add(r.OpenWrite(ctx))
	rep.Add(r.HardLink(ctx))
	rep.Add(r.InPlace(ctx))
	rep.Add(a.selftestMenuBar(ctx, r)...)
	rep.Add(selftest.Timed(func() selftest.Check { return a.selftestDoctor(out) }))
	rep.Add(r.Cleanup(ctx))
	cleaned = true
	werr := rep.Write()
	say := a.say()
	fmt.Fprint(a.Stdout, rep.SummaryIn(say.speaker()))
	if *in.Bool("notify") {
		a.notices().Notify(say.T("RAMBar self-test"),
			say.T("%d passed, %d failed, %d skipped. The report is in %s.", rep.Passed, rep.Failed, rep.Skipped, out))
	}
	switch {
	case werr != nil:
		return werr
	case !rep.OK():
		return fmt.Errorf("selftest: %s failed; see %s", ramdisk.Plural(rep.Failed, "check"), filepath.Join(out, "report.json"))
	}
	return nil
}

// In is t in sp's language (English when sp is nil or not the catalog's
// Printer): a message of the app's inside a self-test check's detail.
func (t text) In(sp i18n.Speaker) string {
	p, _ := sp.(*i18n.Printer)
	return t.say(speech{p})
}

// errNoDataFolder: there is no data folder for the self-test's own files.
var errNoDataFolder = fmt.Errorf("no data folder for the self-test's files: HOME is not set")

// selftestDoctor writes doctor's findings beside the report: on macOS
// `doctor --capture` (tool output, the test disks' memory, natives.txt)
// into DIR/capture; elsewhere `doctor --json`, as the engine has no tool
// output to capture.
func (a *App) selftestDoctor(out string) selftest.Check {
	const name = "doctor.capture"
	f, err := os.Create(filepath.Join(out, "doctor.txt"))
	if err != nil {
		return selftest.Failf(name, "%v", err)
	}
	defer f.Close()
	args := []string{"doctor", "--json"}
	if runtime.GOOS == "darwin" {
		args = []string{"doctor", "--capture", filepath.Join(out, "capture")}
	}
	var errs bytes.Buffer
	sub := &App{Stdout: f, Stderr: &errs, Stdin: a.Stdin, NewEngine: a.NewEngine, Paths: a.Paths, Getenv: a.Getenv, Now: a.Now}
	if code := sub.Main(args); code != exitOK {
		return selftest.Failf(name, "rambar %s: exit %d: %s", args[1], code, errs.String())
	}
	c := selftest.Passf(name, "doctor's output is in %s", f.Name())
	c.Rule = "doctor --json beside the report (the Linux engine has no tool output to capture)"
	if runtime.GOOS == "darwin" {
		c = selftest.Passf(name, "doctor --capture wrote %s", filepath.Join(out, "capture"))
		c.Rule = "doctor --capture (tool output, the memory of 2 and 4 GiB test disks, natives.txt) beside the report"
	}
	return c
}

// Kinds of what a self-test that was killed left, in doctor's leftovers.
const (
	leftSelftestDisk   disks.LeftoverKind = "selftest-disk"
	leftSelftestFolder disks.LeftoverKind = "selftest-folder"
)

// selftestLeftovers lists for doctor what killed self-tests left.
func (a *App) selftestLeftovers(ctx context.Context, e ramdisk.Engine) []disks.Leftover {
	if a.Paths.Data == "" {
		return nil
	}
	vols, folders, _ := selftest.Leftovers(ctx, e, filepath.Join(a.Paths.Data, "selftest"))
	var out []disks.Leftover
	for _, v := range vols {
		out = append(out, disks.Leftover{Kind: leftSelftestDisk, Name: v.Name, Path: v.MountPoint}.
			Advised("a disk of a 'rambar selftest' that was stopped; the next selftest ejects it"))
	}
	for _, f := range folders {
		out = append(out, disks.Leftover{Kind: leftSelftestFolder, Path: f}.
			Advised("the folder of a 'rambar selftest' that was stopped; the next selftest removes it"))
	}
	return out
}
