package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"rambar/disks"
	"rambar/i18n"
	"rambar/internal/run"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "doctor", Summary: i18n.N("check this machine: OS, tools, attach method, memory, disks"),
		Flags: []flagSpec{flagString("capture", "DIR", i18n.N("save what a first Mac run must tell (tool output, memory of test disks) in DIR (macOS)"))},
		JSON:  true, Example: "doctor\ndoctor --capture ~/rambar-fixtures", Order: 90, Run: runDoctor})
}

// Optional engine extras. The macOS engine has them; doctor works with any
// ramdisk.Engine and says what it cannot tell.
type (
	attachTooler interface {
		AttachTool(ctx context.Context) string
	}
	toolLister interface{ Tools() []string }
	capturer   interface {
		Capture(ctx context.Context, dir string) ([]string, error)
	}
	freePercenter interface {
		FreePercent(ctx context.Context) (int, error)
	}
)

// defaultTools are checked when the engine does not list its own.
var defaultTools = map[string][]string{
	"darwin": {"hdiutil", "diskutil", "footprint", "mount_tmpfs", "mdutil", "lsof", "osascript", "vm_stat", "sysctl", "memory_pressure", "ditto"},
	"linux":  {"mount", "umount", "zramctl", "mkfs.ext4", "lsof", "pkexec"},
}

type doctorTool struct {
	Name      string `json:"name"`
	Installed bool   `json:"installed"`
}

type doctorReport struct {
	Version     int             `json:"version"`
	OS          string          `json:"os"`
	Arch        string          `json:"arch"`
	Caps        capsJSON        `json:"caps"`
	AttachTool  *string         `json:"attach_tool"` // null: no ram:// attach step (Linux)
	Tools       []doctorTool    `json:"tools"`
	Memory      *ramdisk.Memory `json:"memory,omitempty"`
	MemoryError string          `json:"memory_error,omitempty"`
	FreePercent *int            `json:"free_percent,omitempty"`
	Disks       []diskJSON      `json:"disks"`
	DisksError  string          `json:"disks_error,omitempty"`
	Captured    []string        `json:"captured,omitempty"`
	// Leftovers are what killed RAMBar processes left behind.
	Leftovers []disks.Leftover `json:"leftovers"`
	// DataReadable says why other users can read the data folder's saved
	// contents (disks.ExposedData); absent when they cannot.
	DataReadable string `json:"data_readable_by_others,omitempty"`
	// Feeds are how disks are followed: fanotify or inotify's budget, and
	// the feed of each disk the menu-bar app follows (feedinfo.go).
	Feeds *feedsJSON `json:"change_feeds"`
	// Desktop is each piece of the Linux desktop RAMBar uses, and what
	// stops working without it; absent on macOS.
	Desktop []desktopCheck `json:"desktop,omitempty"`
}

func runDoctor(ctx context.Context, a *App, in *input) error {
	capture, asJSON := in.String("capture"), in.Bool("json")
	e, err := a.Engine()
	if err != nil {
		return err
	}
	caps := e.Caps()
	r := doctorReport{Version: jsonVersion, OS: runtime.GOOS, Arch: runtime.GOARCH, Caps: toCapsJSON(caps),
		Tools: []doctorTool{}, Disks: []diskJSON{}}
	if at, ok := e.(attachTooler); ok {
		r.AttachTool = optString(at.AttachTool(ctx))
	}
	tools := defaultTools[caps.OS]
	if tl, ok := e.(toolLister); ok {
		tools = tl.Tools()
	}
	for _, t := range tools {
		if t == "pkexec" && a.isRoot() {
			continue // root mounts directly (the desktop checks say so)
		}
		r.Tools = append(r.Tools, doctorTool{Name: t, Installed: run.Has(t)})
	}
	if caps.OS == "linux" {
		r.Desktop = desktopChecks(ctx)
	}
	if m, err := e.Memory(ctx); err != nil {
		r.MemoryError = err.Error()
	} else {
		r.Memory = &m
	}
	if fp, ok := e.(freePercenter); ok {
		if p, err := fp.FreePercent(ctx); err == nil {
			r.FreePercent = &p
		}
	}
	var names []string
	if ds, err := a.disks(ctx); err != nil {
		r.DisksError = err.Error()
	} else {
		for _, d := range ds {
			r.Disks = append(r.Disks, toDiskJSON(d))
			names = append(names, d.Name)
		}
	}
	r.Feeds = a.feedsOf(names)
	r.Leftovers = []disks.Leftover{}
	if svc, err := a.service(); err == nil {
		if l, err := svc.Leftovers(ctx); err == nil {
			r.Leftovers = append(r.Leftovers, l...)
		}
	}
	if a.Paths.Data != "" {
		r.DataReadable = disks.ExposedData(a.Paths.Data)
	}
	r.Leftovers = append(r.Leftovers, a.selftestLeftovers(ctx, e)...)
	var capErr error
	if *capture != "" {
		c, ok := e.(capturer)
		if !ok {
			return fmt.Errorf("doctor --capture: %w: the %s engine has no tool output to capture", ramdisk.ErrUnsupported, caps.OS)
		}
		r.Captured, capErr = c.Capture(ctx, *capture)
		if f, err := a.captureNatives(ctx, *capture); err != nil {
			capErr = errors.Join(capErr, err)
		} else if f != "" {
			r.Captured = append(r.Captured, f)
		}
	}
	if *asJSON {
		if err := writeJSON(a.Stdout, r); err != nil {
			return err
		}
	} else {
		printDoctor(a, r)
	}
	if capErr != nil {
		return fmt.Errorf("doctor --capture %s: %w", *capture, capErr)
	}
	return nil
}

func printDoctor(a *App, r doctorReport) {
	disks := r.Disks
	// As info's rows: each label and text is a message of the catalog.
	say, tw := a.say(), newColumns(a.Stdout)
	field := func(k, f string, args ...any) { fmt.Fprintf(tw, "%s:\t%s\n", say.Text(k), say.T(f, args...)) }
	field("OS", "%s/%s (engine: %s)", r.OS, r.Arch, r.Caps.OS)
	var fss, admin []string
	for _, f := range r.Caps.FileSystems {
		fss = append(fss, f.Label())
	}
	for _, f := range r.Caps.NeedsAdmin {
		admin = append(admin, f.Label())
	}
	field("File systems", "%s", orNone(say, fss))
	switch {
	case len(admin) > 0 && a.isRoot():
		field("Needs admin", "%s (running as root: no prompt)", strings.Join(admin, ", "))
	case len(admin) > 0:
		field("Needs admin", "%s (an administrator's password at each mount and eject (pkexec))", strings.Join(admin, ", "))
	}
	field("Mount root", "%s", r.Caps.MountRoot)
	switch {
	case r.AttachTool != nil && *r.AttachTool == "diskutil":
		field("Attach", "diskutil image attach --noMount ram://N (macOS 27 and later, where hdiutil attach is deprecated; eject: diskutil eject)")
	case r.AttachTool != nil:
		field("Attach", "%s attach -nomount ram://N (through macOS 26: the tool RAMBar's memory findings were measured with)", *r.AttachTool)
	}
	if r.Caps.LazyThreshold > 0 {
		field("Lazy from", "%s (smaller disks take all their memory at once)", say.Number(r.Caps.LazyThreshold.String()))
	} else {
		field("Memory taken", "as files are written, for every size")
	}
	var have, missing []string
	for _, t := range r.Tools {
		if t.Installed {
			have = append(have, t.Name)
		} else {
			missing = append(missing, t.Name)
		}
	}
	field("Tools found", "%s", orNone(say, have))
	field("Tools missing", "%s", orNone(say, missing))
	if r.Memory != nil {
		m := r.Memory
		field("Memory", "%s physical, %s free, %s compressed", say.Size(m.Physical), say.Size(m.Free), say.Size(m.Compressed))
		if m.NoSwap() {
			field("Swap", "none (filling memory wakes the out-of-memory killer, not swap)")
		} else {
			field("Swap", "%s of %s used", say.Size(m.SwapUsed), say.Size(m.SwapTotal))
		}
		if m.Pressure != "" {
			field("Pressure", "%s", m.Pressure)
		}
	} else {
		field("Memory", "unknown: %s", r.MemoryError)
	}
	if r.FreePercent != nil {
		field("Free (memory_pressure)", "%d%%", *r.FreePercent)
	}
	if r.DisksError != "" {
		field("Disks", "unknown: %s", r.DisksError)
	} else if len(disks) == 0 {
		field("Disks", "none mounted")
	}
	tw.Flush()
	printDoctorLists(a, r)
}

// printDoctorLists prints doctor's disks, leftovers and captured files.
func printDoctorLists(a *App, r doctorReport) {
	if disks := r.Disks; len(disks) > 0 {
		fmt.Fprintln(a.Stdout, a.say().T("Disks:"))
		tw := newColumns(a.Stdout)
		for _, d := range disks {
			held := "?"
			if d.Held != nil {
				held = a.say().Size(*d.Held)
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", d.Name, d.MountPoint, d.Device, d.FS.Label(), a.say().T("%s held", held))
		}
		tw.Flush()
	}
	printDesktop(a, r.Desktop)
	printFeeds(a, r.Feeds)
	printLeftovers(a, r.Leftovers)
	if r.DataReadable != "" {
		fmt.Fprintln(a.Stdout, a.say().T("warning: %s", r.DataReadable))
	}
	if len(r.Captured) > 0 {
		fmt.Fprintln(a.Stdout, a.say().T("Captured %d files (send the folder with an issue: it holds tool output, with disk and mount names, and no file contents):",
			len(r.Captured)))
		for _, f := range r.Captured {
			fmt.Fprintf(a.Stdout, "  %s\n", f)
		}
	}
}

// printDesktop lists the desktop's pieces: each found, or missing with
// what stops working without it.
func printDesktop(a *App, cs []desktopCheck) {
	if len(cs) == 0 {
		return
	}
	say := a.say()
	fmt.Fprintln(a.Stdout, say.T("Desktop:"))
	ok, missing := say.T("ok"), say.T("MISSING")
	w := max(displayWidth(ok), displayWidth(missing)) + 2
	pad := func(s string) string { return s + strings.Repeat(" ", w-displayWidth(s)) }
	for _, c := range cs {
		found := say.T("%s: %s", said(say, c.name, c.Name), said(say, c.found, c.Found))
		if c.OK {
			fmt.Fprintf(a.Stdout, "  %s%s\n", pad(ok), found)
		} else {
			fmt.Fprintf(a.Stdout, "  %s%s\n  %s%s\n", pad(missing), found, pad(""), say.T("without it: %s", said(say, c.breaks, c.Breaks)))
		}
	}
}

// said is t in s's language, or english when t was not made (a check
// read back from --json).
func said(s speech, t text, english string) string {
	if t.format == "" {
		return english
	}
	return t.say(s)
}

// printLeftovers lists what stopped RAMBars left behind, and what to do.
func printLeftovers(a *App, ls []disks.Leftover) {
	if len(ls) > 0 {
		fmt.Fprintln(a.Stdout, a.say().T("Left behind by a RAMBar that was stopped:"))
	}
	for _, l := range ls {
		advice := l.Advice
		if l.Format != "" {
			advice = a.say().T(l.Format, l.Args...)
		}
		fmt.Fprintf(a.Stdout, "  %s (%s): %s\n", l.Path, l.Kind, advice)
	}
}

func orNone(say speech, s []string) string {
	if len(s) == 0 {
		return say.T("none")
	}
	return strings.Join(s, ", ")
}

// isRoot reports whether RAMBar runs as root (it then mounts directly).
func (a *App) isRoot() bool { return os.Geteuid() == 0 }
