package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"rambar/i18n"
	"rambar/keeper"
	"rambar/ramdisk"
)

func init() {
	register(&command{Name: "refresh", Summary: i18n.N("bring the changes made in a Mirror disk's folder onto the disk"),
		Doc: i18n.N("A Mirror disk is written into its folder on every save; what changes in the folder meanwhile is kept there " +
			"but does not reach the disk ('info' counts it: changes kept in the folder). refresh brings it over: the disk " +
			"is saved first (its own changes go into the folder), then every path the folder changed since they were " +
			"last brought together is put on the disk where the disk still has what the folder had, each one at once " +
			"(never half written), and the disk is saved again. A path changed on both sides keeps both versions, as a " +
			"save does, under a conflict name beside it. Inside a .git folder the folder's version wins instead and " +
			"git's lock files are never copied."),
		Args: []arg{{Name: "NAME", Doc: i18n.N("a mounted Mirror disk (its name or mount point)")}},
		JSON: true, Example: "refresh Site", Order: 41, Run: runRefresh})
}

// refreshJSON is `rambar refresh --json`.
type refreshJSON struct {
	Version   int               `json:"version"`
	Name      string            `json:"name"`
	Folder    string            `json:"folder"`
	Taken     int               `json:"taken"`
	Removed   int               `json:"removed"`
	Left      []string          `json:"left,omitempty"`
	Conflicts []keeper.Conflict `json:"conflicts"`
	NotKept   []keeper.NotKept  `json:"not_kept,omitempty"`
	Before    resultJSON        `json:"saved_before"`
	After     *resultJSON       `json:"saved_after"`
	Took      float64           `json:"took_seconds"`
}

func runRefresh(ctx context.Context, a *App, in *input) error {
	asJSON := in.Bool("json")
	svc, err := a.service()
	if err != nil {
		return err
	}
	v, err := a.findDisk(ctx, in.Args[0])
	if err != nil {
		return err
	}
	ctx, stop := interruptible(ctx)
	defer stop()
	fn, done := a.contentsProgress(*asJSON)
	r, err := svc.Refresh(ctx, v, fn)
	done()
	if err != nil {
		return interrupted(ctx, refreshErr(err))
	}
	if *asJSON {
		j := refreshJSON{Version: jsonVersion, Name: v.Name, Folder: r.Folder, Taken: r.Taken, Removed: r.Removed, Left: r.Left,
			Conflicts: r.Conflicts(), NotKept: r.NotKept, Before: toResultJSON(r.Before), Took: r.Took.Seconds()}
		j.Before.Folder = nil // its conflicts are the document's
		if j.Conflicts == nil {
			j.Conflicts = []keeper.Conflict{}
		}
		if r.After.Snapshot != "" {
			after := toResultJSON(r.After)
			after.Folder = nil
			j.After = &after
		}
		return writeJSON(a.Stdout, j)
	}
	fmt.Fprintln(a.Stdout, describeRefresh(a.say(), v.Name, r))
	return nil
}

// describeRefresh is refresh's report: what came over, what the saves
// around it kept of both sides.
func describeRefresh(s speech, name string, r keeper.Refreshed) string {
	var b strings.Builder
	if r.Taken+r.Removed == 0 && len(r.Left) == 0 {
		b.WriteString(s.T("%s has every change of %s already", name, r.Folder))
	} else {
		b.WriteString(s.T("Took %d changes from %s onto %s (%d added or changed, %d removed) in %s", r.Taken+r.Removed,
			r.Folder, name, r.Taken, r.Removed, s.Number(ramdisk.ShortDuration(r.Took))))
	}
	if n := len(r.Left); n > 0 {
		b.WriteString("\n" + s.T("%d paths changed on the disk too while it ran: the disk's version is under the name, the folder's beside it:", n))
		for _, p := range r.Left {
			b.WriteString("\n  " + p)
		}
	}
	b.WriteString(describeNotKept(s, r.NotKept))
	wb := &keeper.WriteBack{Folder: r.Folder, Conflicts: r.Conflicts()}
	for _, res := range []keeper.Result{r.Before, r.After} {
		if res.Folder != nil {
			wb.NotKept = append(wb.NotKept, res.Folder.NotKept...)
			wb.DeletedOutside = append(wb.DeletedOutside, res.Folder.DeletedOutside...)
		}
	}
	b.WriteString(describeWriteBack(s, wb))
	return b.String()
}

// refreshErr maps refresh's refusals onto the CLI's exit codes: a disk
// that is not a Mirror disk is a bad argument (exit 2).
func refreshErr(err error) error {
	if errors.Is(err, keeper.ErrNotMirror) {
		return usagef("%v", err)
	}
	return contentsErr(err)
}
