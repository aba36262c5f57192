package main

import (
	"context"
	"errors"
	"fmt"

	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "up", Summary: "mount every preset marked --auto-mount that is not mounted",
		Doc:  "This is what happens at login. It reports each preset and exits non-zero if any failed.",
		JSON: true, Example: "up", Order: 45, Run: runUp})
}

// UpOutcome is what `up` did with one preset.
type UpOutcome string

// Outcomes of Up.
const (
	UpMounted UpOutcome = "mounted" // the disk was made
	UpSkipped UpOutcome = "skipped" // a disk of that name was already mounted
	UpFailed  UpOutcome = "failed"  // making it failed; Err says why
)

// UpResult is one auto-mount preset and what Up did with it.
type UpResult struct {
	Preset  ramdisk.Preset
	Outcome UpOutcome
	Volume  ramdisk.Volume // the new disk, or the one already mounted
	Plan    ramdisk.Plan   // set when the disk was made (its notes are worth showing)
	Err     error
}

// Up mounts every auto-mount preset whose disk is not mounted, one after the
// other, each through createDisk. One failure does not stop the others. The
// error is only for settings that cannot be read; per-preset failures are in
// the results. The tray calls it at start when it was launched at login.
func (a *App) Up(ctx context.Context) ([]UpResult, error) {
	st, err := a.Store()
	if err != nil {
		return nil, err
	}
	s, err := st.Load()
	if err != nil {
		return nil, err
	}
	var out []UpResult
	for _, p := range s.AutoMountPresets() {
		r := UpResult{Preset: p}
		r.Plan, r.Volume, r.Err = a.mountPreset(ctx, p)
		switch {
		case r.Err == nil:
			r.Outcome = UpMounted
		case errors.Is(r.Err, ramdisk.ErrExists) && r.Volume.Name != "":
			r.Outcome, r.Err = UpSkipped, nil
		default:
			r.Outcome = UpFailed
		}
		out = append(out, r)
	}
	return out, nil
}

type upJSON struct {
	Preset string    `json:"preset"`
	Result UpOutcome `json:"result"`
	Disk   *diskJSON `json:"disk,omitempty"`
	Error  string    `json:"error,omitempty"`
}

func runUp(ctx context.Context, a *App, in *input) error {
	asJSON := in.Bool("json")
	rs, err := a.Up(ctx)
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range rs {
		if r.Outcome == UpFailed {
			failed++
		}
	}
	if *asJSON {
		out := struct {
			Version int      `json:"version"`
			Presets []upJSON `json:"presets"`
		}{Version: jsonVersion, Presets: []upJSON{}}
		for _, r := range rs {
			j := upJSON{Preset: r.Preset.Name, Result: r.Outcome}
			if r.Err != nil {
				j.Error = r.Err.Error()
			} else {
				d := toDiskJSON(disk{Volume: r.Volume})
				j.Disk = &d
			}
			out.Presets = append(out.Presets, j)
		}
		if err := writeJSON(a.Stdout, out); err != nil {
			return err
		}
	} else {
		if len(rs) == 0 {
			fmt.Fprintln(a.Stdout, "No preset mounts at login. Mark one with: rambar preset edit NAME --auto-mount")
		}
		for _, r := range rs {
			switch r.Outcome {
			case UpMounted:
				fmt.Fprintf(a.Stdout, "Mounted %s at %s (%s)\n", r.Preset.Name, r.Volume.MountPoint, r.Plan.Summary())
				for _, n := range r.Plan.Notes {
					if n.Severity == ramdisk.Warning {
						fmt.Fprintf(a.Stdout, "  warning: %s\n", n.Text)
					}
				}
			case UpSkipped:
				fmt.Fprintf(a.Stdout, "Skipped %s: already mounted at %s\n", r.Preset.Name, r.Volume.MountPoint)
			case UpFailed:
				fmt.Fprintf(a.Stdout, "Failed %s: %v\n", r.Preset.Name, r.Err)
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("up: %d of %d auto-mount presets failed", failed, len(rs))
	}
	return nil
}
