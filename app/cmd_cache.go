package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"rambar/cache"
	"rambar/disks"
	"rambar/i18n"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "cache", Summary: i18n.N("put a cache folder on a RAM disk, safely"),
		Doc: i18n.N("The folder becomes a link to a path in RAMBar's data folder that always resolves: to a folder " +
			"on the disk while it is mounted, to an empty ordinary folder while it is not (eject switches it " +
			"first), so a login or an app never meets a dangling link. Its old contents are kept and put back " +
			"by 'off'. Folders the system needs to log in (~/Library, ~/Library/Caches, ~/.cache, your home) " +
			"are refused unless --force. Whether it pays depends on the work: measure it with 'rambar try'."),
		Subs: []*command{
			{Name: "on", Summary: i18n.N("switch cache folders onto a mounted RAM disk"),
				Args:    []arg{nameArg, {Name: "TARGET", Repeat: true, Doc: i18n.N("a known cache (see 'rambar cache list': go, npm, xcode, tmpdir…) or a folder")}},
				Flags:   []flagSpec{flagBool("force", i18n.N("allow a folder the system needs to log in (it falls back to an empty folder when the disk is away)"))},
				Example: "cache on Build go npm\ncache on Build ~/.gradle/caches\ncache on Build tmpdir",
				Run:     runCacheOn},
			{Name: "off", Summary: i18n.N("put cache folders back as they were, with their old contents"),
				Args:    []arg{nameArg, {Name: "TARGET", Repeat: true, Doc: i18n.N("a known cache or a folder that is on the disk")}},
				Example: "cache off Build go", Run: runCacheOff},
			{Name: "list", Aliases: []string{"ls"}, Summary: i18n.N("the caches on RAM disks, and the known ones with what they gain"),
				Args: []arg{{Name: "NAME", Optional: true, Doc: i18n.N("only this disk's")}}, Example: "cache list", Run: runCacheList},
		},
		Example: "cache on Build go\ncache list\ncache off Build go", Order: 42})
}

// goCache is `go env GOCACHE`, asked once (the menu lists targets at every
// build); "" when go is not installed or says nothing.
var goCache = sync.OnceValue(func() string {
	if os.Getenv("GOCACHE") != "" {
		return ""
	}
	path, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "env", "GOCACHE").Output()
	if err != nil {
		return ""
	}
	if p := strings.TrimSpace(string(out)); filepath.IsAbs(p) {
		return p
	}
	return ""
})

// cacheEnv is os.Getenv, with GOCACHE from `go env` when it is not set.
func cacheEnv(k string) string {
	if k == "GOCACHE" && os.Getenv(k) == "" {
		return goCache()
	}
	return os.Getenv(k)
}

// knownCaches are the targets this OS knows, XDG cache folders included on Linux.
func knownCaches() []cache.Target {
	k := cache.KnownTargets(runtime.GOOS, cacheEnv)
	if runtime.GOOS == "linux" {
		k = append(k, cache.XDGTargets(os.Getenv, k)...)
	}
	return k
}

// cacheErr maps cache refusals onto the CLI's exit codes.
func cacheErr(err error) error {
	if errors.Is(err, cache.ErrRefused) {
		return usagef("%v", err)
	}
	return err
}

// cacheArgs is what 'cache on' and 'cache off' share: the use cases, the
// disk's name and at least one target.
func (a *App) cacheArgs(in *input, verb string) (svc *disks.Service, name string, targets []string, err error) {
	name, targets = in.Args[0], in.Args[1:]
	if len(targets) == 0 {
		return nil, "", nil, usagef("cache %s %s: give at least one TARGET (see 'rambar cache list')", verb, name)
	}
	svc, err = a.service()
	return svc, name, targets, err
}

func runCacheOn(ctx context.Context, a *App, in *input) error {
	svc, name, targets, err := a.cacheArgs(in, "on")
	if err != nil {
		return err
	}
	known := knownCaches()
	for _, arg := range targets {
		t, err := a.cacheTarget("cache on "+name+":", arg, known)
		if err != nil {
			return err
		}
		st, err := svc.Caches().On(ctx, name, t, *in.Bool("force"))
		if err != nil {
			return cacheErr(err)
		}
		say := a.say()
		if t.Path == cache.TMPDIRKey {
			fmt.Fprintln(a.Stdout, say.T("TMPDIR on %s: add this line to your shell's profile (it always resolves, disk or not):", st.Disk))
			fmt.Fprintf(a.Stdout, "  export TMPDIR=%s\n", shellQuote(st.Link))
			continue
		}
		if st.Saved == "" {
			fmt.Fprintln(a.Stdout, say.T("%s (%s) is on %s now; it did not exist before, so 'rambar cache off' removes it again",
				say.Text(t.Label), t.Path, st.Disk))
		} else {
			fmt.Fprintln(a.Stdout, say.T("%s (%s) is on %s now; its old contents wait in %s for 'rambar cache off'",
				say.Text(t.Label), t.Path, st.Disk, st.Saved))
		}
		if t.Gain != "" {
			fmt.Fprintln(a.Stdout, "  · "+say.T("expect: %s", say.Text(t.Gain)))
		}
	}
	return nil
}

func runCacheOff(ctx context.Context, a *App, in *input) error {
	svc, name, targets, err := a.cacheArgs(in, "off")
	if err != nil {
		return err
	}
	known := knownCaches()
	on := svc.Caches().List(ctx)
	for _, arg := range targets {
		t, err := a.cacheTarget("cache off "+name+":", arg, known)
		if err != nil {
			return err
		}
		found := false
		for _, c := range on {
			if c.Target == t.Path {
				found = true
				if !svc.SameName(c.Disk, name) {
					return usagef("cache off %s: %s is on %s, not %s", name, t.Path, c.Disk, name)
				}
			}
		}
		if !found {
			return fmt.Errorf("cache off %s: %s: %w (not on a RAM disk)", name, t.Path, ramdisk.ErrNotFound)
		}
		told, err := svc.Caches().OffTold(ctx, t.Path)
		if told != "" {
			fmt.Fprintln(a.Stdout, capitalize(told))
		}
		if err != nil {
			return cacheErr(err)
		}
		if t.Path == cache.TMPDIRKey {
			fmt.Fprintln(a.Stdout, a.say().T("TMPDIR is off; its link stays, pointing at an empty folder: remove the export line from your shell's profile"))
			continue
		}
		fmt.Fprintln(a.Stdout, a.say().T("%s is back as it was", t.Path))
	}
	return nil
}

func runCacheList(ctx context.Context, a *App, in *input) error {
	say := a.say()
	svc, err := a.service()
	if err != nil {
		return err
	}
	only := ""
	if len(in.Args) > 0 {
		only = in.Args[0]
	}
	on := map[string]cache.State{}
	var rows []string
	for _, c := range svc.Caches().List(ctx) {
		on[c.Target] = c
		if only != "" && !svc.SameName(only, c.Disk) {
			continue
		}
		now := say.T("on the disk")
		if !c.OnDisk {
			now = say.T("empty folder (disk not mounted)")
		}
		target := c.Target
		if target == cache.TMPDIRKey {
			target = "TMPDIR=" + c.Link
		}
		rows = append(rows, c.Disk+"\t"+target+"\t"+now)
	}
	if len(rows) == 0 {
		fmt.Fprintln(a.Stdout, say.T("No cache is on a RAM disk. Put one there with: rambar cache on NAME TARGET"))
	} else {
		tw := newColumns(a.Stdout)
		fmt.Fprintln(tw, say.T("DISK\tTARGET\tNOW"))
		for _, r := range rows {
			fmt.Fprintln(tw, r)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(a.Stdout, "\n"+say.T("Known caches (rambar cache on NAME KEY); measure first with 'rambar try -- COMMAND':"))
	for _, k := range knownCaches() {
		mark := ""
		if c, ok := on[k.Path]; ok {
			mark = " " + say.T("[on %s]", c.Disk)
		}
		path := k.Path
		if path == cache.TMPDIRKey {
			path = "$TMPDIR"
		}
		fmt.Fprintf(a.Stdout, "  %s — %s, %s%s\n    %s\n", k.Key, say.Text(k.Label), path, mark, say.Text(k.Gain))
	}
	return nil
}

// cacheTarget reads one TARGET of the cache commands (or --caches): a
// known cache's key, or a folder written as a path (cache.LooksLikePath, ~
// expanded). Anything else is refused with the known keys and the nearest
// one, so a slip never becomes a new folder in the current directory.
func (a *App) cacheTarget(what, arg string, known []cache.Target) (cache.Target, error) {
	if !cache.LooksLikePath(arg) {
		if t, err := cache.ResolveTarget(arg, known); err == nil {
			return t, nil
		}
		keys := make([]string, len(known))
		for i, k := range known {
			keys[i] = k.Key
		}
		if best := nearest(arg, keys); best != "" {
			return cache.Target{}, usagef("%s unknown cache %q; did you mean %s? known: %s; a folder is given as a path (./%s, /path, ~/path)",
				what, arg, best, strings.Join(keys, ", "), arg)
		}
		return cache.Target{}, usagef("%s unknown cache %q; known: %s; a folder is given as a path (./%s, /path, ~/path)",
			what, arg, strings.Join(keys, ", "), arg)
	}
	path, err := a.pathArg(what, arg)
	if err != nil {
		return cache.Target{}, err
	}
	t, err := cache.ResolveTarget(path, known)
	if err != nil {
		return t, cacheErr(err)
	}
	return t, nil
}

// shellQuote quotes a path for a shell line the user copies.
func shellQuote(s string) string {
	if strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
