package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"rambar/mirror"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "snapshots", Summary: "list the saved states of a kept or mirrored disk",
		Doc:  "The disk need not be mounted.",
		Args: []arg{{Name: "NAME", Doc: "a kept or mirrored disk"}},
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
	if err != nil {
		return contentsErr(err)
	}
	snaps, err := k.Snapshots(pos[0])
	if err != nil {
		return err
	}
	if *asJSON {
		if snaps == nil {
			snaps = []mirror.Snapshot{}
		}
		return writeJSON(a.Stdout, struct {
			Version   int               `json:"version"`
			Name      string            `json:"name"`
			Backing   string            `json:"backing"`
			Snapshots []mirror.Snapshot `json:"snapshots"`
		}{jsonVersion, st.Name, st.Backing, snaps})
	}
	if len(snaps) == 0 {
		fmt.Fprintf(a.Stdout, "%s has not been saved yet (%s).\n", st.Name, st.Backing)
		return nil
	}
	tw := tabwriter.NewWriter(a.Stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSAVED\tFILES\tSIZE\t")
	for _, s := range snaps {
		cur := ""
		if s.Current {
			cur = "current"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Time.Local().Format("2006-01-02 15:04:05"), s.Files, ramdisk.Size(s.Bytes).Short(), cur)
	}
	return tw.Flush()
}
