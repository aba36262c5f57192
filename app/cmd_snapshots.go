package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "snapshots", Summary: i18n.N("list the saved states of a kept or mirrored disk"),
		Doc:  i18n.N("The disk need not be mounted."),
		Args: []arg{{Name: "NAME", Doc: i18n.N("a kept or mirrored disk")}},
		JSON: true, Example: "snapshots Work", Order: 42, Run: runSnapshots})
}

func runSnapshots(ctx context.Context, a *App, in *input) error {
	asJSON, pos := in.Bool("json"), in.Args
	if err := ramdisk.ValidateName(pos[0]); err != nil {
		return err
	}
	k, err := a.keeper()
	if err != nil {
		return err
	}
	// The disk need not be mounted: its saves are listed by name.
	st, err := k.State(pos[0])
	if errors.Is(err, keeper.ErrNotKept) {
		// No saves under that name: no such disk (exit 4).
		return notFoundError{fmt.Errorf("%s: no saved contents under that name (a disk made with --keep or --mirror has them)", pos[0])}
	}
	if err != nil {
		return contentsErr(err)
	}
	snaps, err := k.Snapshots(pos[0])
	if err != nil {
		return err
	}
	onDisk := a.snapshotOnDisk(ctx, k, st.Name)
	if *asJSON {
		out := []snapshotJSON{}
		for _, s := range snaps {
			out = append(out, snapshotJSON{s, s.ID == onDisk})
		}
		return writeJSON(a.Stdout, struct {
			Version   int            `json:"version"`
			Name      string         `json:"name"`
			Backing   string         `json:"backing"`
			Snapshots []snapshotJSON `json:"snapshots"`
		}{jsonVersion, st.Name, st.Backing, out})
	}
	if len(snaps) == 0 {
		fmt.Fprintln(a.Stdout, a.say().T("%s has not been saved yet (%s).", st.Name, st.Backing))
		return nil
	}
	say := a.say()
	tw := newColumns(a.Stdout)
	fmt.Fprintln(tw, say.T("ID\tSAVED\tFILES\tSIZE\t"))
	for _, s := range snaps {
		var marks []string
		if s.Current {
			marks = append(marks, say.T("latest"))
		}
		if s.ID == onDisk {
			marks = append(marks, say.T("on the disk now"))
		}
		if s.SetAside {
			marks = append(marks, say.T("kept work set aside (never pruned)"))
		}
		if m := safetyMark(say, s.Safety); m != "" {
			marks = append(marks, m)
		}
		if s.InUse != nil {
			marks = append(marks, say.T("taken while in use (%d paths changing)", s.InUse.Count))
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, snapshotTime(s.Time, time.Local), s.Files,
			say.Size(ramdisk.Size(s.Bytes)), strings.Join(marks, say.listSep()))
	}
	return tw.Flush()
}

// snapshotJSON is one snapshot in `snapshots --json`: current is the latest
// save (the next one builds on it), on_disk the state the mounted disk was
// last saved as or restored from.
type snapshotJSON struct {
	keeper.Snapshot
	OnDisk bool `json:"on_disk"`
}

// snapshotOnDisk is the snapshot a mounted disk holds, "" when it is not
// mounted or that cannot be told.
func (a *App) snapshotOnDisk(ctx context.Context, k *keeper.Keeper, name string) string {
	svc, err := a.service()
	if err != nil {
		return ""
	}
	if _, err := svc.Find(ctx, name); err != nil {
		return ""
	}
	id, _ := k.Holding(name)
	return id
}

// safetyMark is how `snapshots` marks a safety snapshot (l: its label;
// nil: none), in s's language.
func safetyMark(s speech, l *keeper.Safety) string {
	switch {
	case l == nil:
		return ""
	case l.Kind == keeper.SafetyUnwritten && l.Count == 0: // marked before a load that did not finish
		return s.T("safety: never written to its folder (kept until restored or forgotten)")
	case l.Kind == keeper.SafetyUnwritten:
		return s.T("safety: %d paths not in the folder (kept until restored or forgotten)", l.Count)
	case l.Of != "":
		return s.T("safety: saved before restore of %s (%d paths unsaved; pruned last)", l.Of, l.Count)
	}
	return s.T("safety: saved before restore (%d paths unsaved; pruned last)", l.Count)
}
