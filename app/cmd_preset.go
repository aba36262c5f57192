package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rambar/i18n"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "preset", Summary: i18n.N("disks to make in one click, or at login ('rambar up')"),
		Doc: i18n.N("Presets live in the settings file; the menu lists them too."),
		Subs: []*command{
			{Name: "add", Summary: i18n.N("add a preset"), Args: []arg{nameArg, sizeArg}, Flags: presetFlagSpecs(false),
				Refuses: clashLines(presetFlagSpecs(false)),
				Example: "preset add Scratch 4G --auto-mount\npreset add Cache 25% --keep --save-every 10m --snapshots 3",
				Run:     runPresetAdd},
			{Name: "edit", Summary: i18n.N("change a preset: only what is given changes"),
				Args:  []arg{{Name: "NAME", Doc: i18n.N("the preset (any letter case)")}, {Name: "SIZE", Optional: true, Doc: sizeArg.Doc}},
				Flags: presetFlagSpecs(true), Refuses: clashLines(presetFlagSpecs(true)), Example: "preset edit Scratch 8G --no-auto-mount", Run: runPresetEdit},
			{Name: "rm", Aliases: []string{"remove"}, Summary: i18n.N("remove a preset (a mounted disk of that name stays mounted)"),
				Args: []arg{{Name: "NAME"}}, Example: "preset rm Cache", Run: runPresetRm},
			{Name: "list", Aliases: []string{"ls"}, Summary: i18n.N("list the presets"), JSON: true,
				Example: "preset list", Run: runPresetList},
			{Name: "mount", Summary: i18n.N("make a preset's disk now, as 'rambar create' would"),
				Args: []arg{{Name: "NAME"}}, Example: "preset mount Scratch", Run: runPresetMount},
		},
		Example: "preset add Scratch 4G --auto-mount\npreset list", Order: 40})
}

// physical is the machine's memory, for percentage sizes; 0 when unknown (a
// percentage is then refused with a message saying so).
func (a *App) physical(ctx context.Context) ramdisk.Size {
	e, err := a.Engine()
	if err != nil {
		return 0
	}
	m, err := e.Memory(ctx)
	if err != nil {
		return 0
	}
	return m.Physical
}

// checkFS refuses a file system this machine's engine cannot make, so a
// preset never waits until login to fail for that.
func (a *App) checkFS(fs ramdisk.FileSystem) error {
	e, err := a.Engine()
	if err != nil || fs == "" {
		return nil
	}
	return e.Caps().CheckFS(fs)
}

// asUsage marks a refused preset as bad input (exit 2), unless it is already
// a named kind (not found, exists).
func asUsage(err error) error {
	var ue *usageError
	if err == nil || errors.Is(err, ramdisk.ErrNotFound) || errors.Is(err, ramdisk.ErrExists) ||
		errors.Is(err, ramdisk.ErrUnsupported) || errors.As(err, &ue) {
		return err
	}
	return usagef("%v", err)
}

func runPresetAdd(ctx context.Context, a *App, in *input) error {
	pf, err := newPresetFlags(in)
	if err != nil {
		return err
	}
	pos := a.nameSize(in.Args)
	c, err := pf.change(a.parseFS, a.pathArg)
	if err != nil {
		return err
	}
	if err := a.volumeChange(in, &c); err != nil {
		return err
	}
	p := ramdisk.Preset{Name: pos[0], Size: pos[1]}
	c.Apply(&p)
	if err := ramdisk.CheckChoices(p.Choices()); err != nil {
		return err // AddPreset checks again; refused here before the folder is looked at
	}
	if err := a.checkFS(p.FS); err != nil {
		return err
	}
	st, err := a.Store()
	if err != nil {
		return err
	}
	phys := a.physical(ctx)
	if err := a.checkPresetMirror(p, nil, *in.Bool("create-folder")); err != nil {
		return err
	}
	if _, err := st.Update(phys, func(s *ramdisk.Settings) error {
		if err := a.checkPresetMirror(p, s.Presets, *in.Bool("create-folder")); err != nil {
			return err
		}
		return asUsage(s.AddPreset(p, phys))
	}); err != nil {
		return err
	}
	if err := makeMirrorFolder(in, p); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, a.say().T("Added preset %s: %s", p.Name, presetLine(a.say(), p)))
	a.noteAutosave(p.Name, presetAutosave(p))
	return nil
}

func runPresetEdit(ctx context.Context, a *App, in *input) error {
	pf, err := newPresetFlags(in)
	if err != nil {
		return err
	}
	pos := in.Args
	c, err := pf.change(a.parseFS, a.pathArg)
	if err != nil {
		return err
	}
	if err := a.volumeChange(in, &c); err != nil {
		return err
	}
	if size := *in.String("size"); pf.set["size"] || len(pos) == 2 {
		if len(pos) == 2 {
			if pf.set["size"] {
				return usagef("give the size once")
			}
			size = pos[1]
		}
		c.Size = &size
	}
	if c.Empty() {
		return usagef("nothing to change; give a size or flags (see 'rambar preset edit --help')")
	}
	if c.FS != nil {
		if err := a.checkFS(*c.FS); err != nil {
			return err
		}
	}
	st, err := a.Store()
	if err != nil {
		return err
	}
	phys := a.physical(ctx)
	var got ramdisk.Preset
	if _, err := st.Update(phys, func(s *ramdisk.Settings) error {
		var err error
		if got, err = s.EditPreset(pos[0], c, phys); err != nil {
			return asUsage(err)
		}
		if c.MirrorPath != nil || c.InPlace != nil && *c.InPlace {
			return a.checkPresetMirror(got, s.Presets, *in.Bool("create-folder"))
		}
		return nil
	}); err != nil {
		return err
	}
	if err := makeMirrorFolder(in, got); err != nil {
		return err
	}
	fmt.Fprintln(a.Stdout, a.say().T("Changed preset %s: %s", got.Name, presetLine(a.say(), got)))
	if c.SaveEvery != nil || c.SaveAuto != nil {
		a.noteAutosave(got.Name, presetAutosave(got))
	}
	return nil
}

func runPresetRm(ctx context.Context, a *App, in *input) error {
	pos := in.Args
	st, err := a.Store()
	if err != nil {
		return err
	}
	var gone ramdisk.Preset
	if _, err := st.Update(a.physical(ctx), func(s *ramdisk.Settings) error {
		var err error
		gone, err = s.RemovePreset(pos[0])
		return err
	}); err != nil {
		return err
	}
	if v, err := a.findDisk(ctx, gone.Name); err == nil {
		fmt.Fprintln(a.Stdout, a.say().T("Removed preset %s (its disk stays mounted at %s)", gone.Name, v.MountPoint))
		return nil
	}
	fmt.Fprintln(a.Stdout, a.say().T("Removed preset %s", gone.Name))
	return nil
}

// presetJSON is one preset in `preset list --json`.
type presetJSON struct {
	Name       string              `json:"name"`
	Size       string              `json:"size"`
	SizeBytes  *ramdisk.Size       `json:"size_bytes"` // null when it cannot be resolved here
	FS         *ramdisk.FileSystem `json:"fs"`         // null: the engine's default
	Hidden     bool                `json:"hidden"`
	AutoMount  bool                `json:"auto_mount"`
	Contents   string              `json:"contents"` // discard, keep, mirror
	MirrorPath string              `json:"mirror_path,omitempty"`
	InPlace    bool                `json:"in_place,omitempty"` // the disk is mounted over the mirror folder
	SaveEvery  float64             `json:"save_every_seconds"` // 0: no autosave
	Snapshots  int                 `json:"snapshots"`
	// The disk's extras and its cache targets (settings version 3).
	NoExec     bool     `json:"noexec"`
	Folders    []string `json:"folders,omitempty"`
	MountPoint string   `json:"mount_point,omitempty"`
	Icon       string   `json:"icon,omitempty"`
	Spotlight  bool     `json:"spotlight"`
	Caches     []string `json:"caches,omitempty"`
}

func contentsWord(m ramdisk.ContentMode) string {
	if m == ramdisk.Discard {
		return "discard"
	}
	return string(m)
}

func runPresetList(ctx context.Context, a *App, in *input) error {
	asJSON := in.Bool("json")
	st, err := a.Store()
	if err != nil {
		return err
	}
	s, err := st.Load()
	if err != nil {
		return err
	}
	phys := a.physical(ctx)
	if *asJSON {
		out := struct {
			Version int          `json:"version"`
			Presets []presetJSON `json:"presets"`
		}{Version: jsonVersion, Presets: []presetJSON{}}
		for _, p := range s.Presets {
			j := presetJSON{Name: p.Name, Size: p.Size, Hidden: p.Hidden, AutoMount: p.AutoMount,
				Contents: contentsWord(p.Contents), MirrorPath: p.MirrorPath, InPlace: p.InPlace, SaveEvery: float64(p.SaveEvery), Snapshots: p.Snapshots,
				NoExec: p.NoExec, Folders: p.Folders, MountPoint: p.MountPoint, Icon: p.Icon, Spotlight: p.Spotlight, Caches: p.Caches}
			if p.FS != "" {
				j.FS = &p.FS
			}
			if z, err := ramdisk.ParseSize(p.Size, phys); err == nil {
				j.SizeBytes = &z
			}
			out.Presets = append(out.Presets, j)
		}
		return writeJSON(a.Stdout, out)
	}
	if len(s.Presets) == 0 {
		fmt.Fprintln(a.Stdout, a.say().T("No presets. Add one with: rambar preset add Scratch 4G --auto-mount"))
		return nil
	}
	say, tw := a.say(), newColumns(a.Stdout)
	fmt.Fprintln(tw, say.T("NAME\tSIZE\tFS\tAT LOGIN\tCONTENTS"))
	for _, p := range s.Presets {
		size := p.Size
		if z, err := ramdisk.ParseSize(p.Size, phys); err == nil && strings.HasSuffix(p.Size, "%") {
			size += " (" + say.Size(z) + ")"
		}
		fs := say.T("default")
		if p.FS != "" {
			fs = p.FS.Label()
		}
		if p.Hidden {
			fs = say.T("%s, hidden", fs)
		}
		login := say.T("no")
		if p.AutoMount {
			login = say.T("yes")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.Name, size, fs, login, presetContents(say, p))
	}
	return tw.Flush()
}

// describePreset is a one-line summary for add and edit.
func describePreset(p ramdisk.Preset) string {
	parts := []string{p.Size}
	if p.FS != "" {
		parts = append(parts, p.FS.Label())
	}
	if p.Hidden {
		parts = append(parts, "hidden")
	}
	if p.AutoMount {
		parts = append(parts, "mounts at login")
	}
	parts = append(parts, "contents "+ramdisk.ContentsPhrase(p))
	if o := describeOptions(p); o != "" {
		parts = append(parts, o)
	}
	return strings.Join(parts, ", ")
}

func runPresetMount(ctx context.Context, a *App, in *input) error {
	pos := in.Args
	plan, v, err := a.MountPreset(ctx, pos[0])
	if err != nil {
		return err
	}
	printPlan(a, plan)
	fmt.Fprintln(a.Stdout, a.say().T("Created %s at %s (%s)", v.Name, v.MountPoint, v.Device))
	return nil
}

// MountPreset makes the disk a preset describes, through the same path as
// `rambar create` (disks.Service.MountPresetNamed), printing nothing. A
// preset whose disk is already mounted gives ErrExists; an unknown name
// gives ErrNoPreset (which is also ErrNotFound).
func (a *App) MountPreset(ctx context.Context, name string) (ramdisk.Plan, ramdisk.Volume, error) {
	svc, err := a.service()
	if err != nil {
		return ramdisk.Plan{}, ramdisk.Volume{}, err
	}
	c, err := svc.MountPresetNamed(ctx, name, nil)
	if err != nil {
		return c.Plan, c.Volume, createErr(err)
	}
	return c.Plan, c.Volume, nil
}
