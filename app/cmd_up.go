package main

import (
	"context"
	"fmt"

	"rambar/disks"
	"rambar/i18n"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "up", Summary: i18n.N("mount every preset marked --auto-mount that is not mounted"),
		Doc:   i18n.N("This is what happens at login. It reports each preset and exits non-zero if any failed."),
		Flags: []flagSpec{flagBool("force", i18n.N("make disks even when the memory check refuses them"))},
		JSON:  true, Example: "up\nup --force", Order: 45, Run: runUp})
}

type upJSON struct {
	Preset string          `json:"preset"`
	Result disks.UpOutcome `json:"result"`
	Disk   *diskJSON       `json:"disk,omitempty"`
	Error  string          `json:"error,omitempty"`
}

func runUp(ctx context.Context, a *App, in *input) error {
	asJSON, force := in.Bool("json"), in.Bool("force")
	ctx, stop := interruptible(ctx)
	defer stop()
	svc, err := a.service()
	if err != nil {
		return err
	}
	for _, e := range svc.Caches().Repair(ctx) { // before any disk is mounted: no cache points at a missing disk
		fmt.Fprintf(a.Stderr, "rambar: warning: %v\n", e)
	}
	rs, err := svc.Up(ctx, disks.UpOptions{Force: *force})
	if err != nil {
		return interrupted(ctx, err)
	}
	failed := 0
	for _, r := range rs {
		if r.Outcome == disks.UpFailed {
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
				d := a.measuredDiskJSON(ctx, r.Volume)
				j.Disk = &d
			}
			out.Presets = append(out.Presets, j)
		}
		if err := writeJSON(a.Stdout, out); err != nil {
			return err
		}
	} else {
		say := a.say()
		if len(rs) == 0 {
			fmt.Fprintln(a.Stdout, say.T("No preset mounts at login. Mark one with: rambar preset edit NAME --auto-mount"))
		}
		for _, r := range rs {
			switch r.Outcome {
			case disks.UpMounted:
				fmt.Fprintln(a.Stdout, say.T("Mounted %s at %s (%s)", r.Preset.Name, r.Volume.MountPoint, planSummary(say, r.Plan)))
				for _, n := range r.Plan.Notes {
					if n.Severity == ramdisk.Warning {
						fmt.Fprintln(a.Stdout, "  "+say.T("warning: %s", noteBody(say, n)))
					}
				}
			case disks.UpSkipped:
				fmt.Fprintln(a.Stdout, say.T("Skipped %s: already mounted at %s", r.Preset.Name, r.Volume.MountPoint))
			case disks.UpFailed:
				fmt.Fprintln(a.Stdout, say.T("Failed %s: %v", r.Preset.Name, r.Err))
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("up: %d of %d auto-mount presets failed", failed, len(rs))
	}
	return nil
}
