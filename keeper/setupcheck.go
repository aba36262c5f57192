package keeper

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"rambar/i18n"
	"rambar/snapstore"
	"rambar/syncrec"

	"rambar/ramdisk"
)

// ErrKeptWork: a name's store holds work saved while the disk was kept
// that is in no folder, and mirroring a folder under that name now would
// bury it (the disk would load the folder, and prune drop that work). It is
// also ErrRefused.
var ErrKeptWork = i18n.New("kept work would be buried")

type keptWorkError struct{ msg string }

func (e keptWorkError) Error() string        { return e.msg }
func (e keptWorkError) Is(target error) bool { return target == ErrKeptWork || target == ErrRefused }

// keptWork checks a setup of st with o: mirroring a store that holds kept
// work in no folder is refused (ErrKeptWork, naming the choices) unless
// o.SetAsideKept, which returns that work's snapshot to keep out of prune.
// Kept work is the current snapshot of a store in Keep mode that no Mirror
// load or write-back made or wrote to a folder.
func (k *Keeper) keptWork(st State, o Options) (string, error) {
	if o.Mode != ramdisk.Mirror || st.Mode != ramdisk.Keep {
		return "", nil
	}
	s := k.store(st)
	cur, err := s.Current()
	if err != nil || cur == "" {
		return "", err
	}
	if h, ok := syncrec.ReadHead(st.Backing); ok && h.Complete && h.Snapshot == cur {
		return "", nil // what it holds is in the folder it was written back to
	}
	if slices.Contains(st.SetAside, cur) {
		return "", nil // set aside already
	}
	if o.SetAsideKept {
		return cur, nil
	}
	when := ""
	if m, err := s.ReadManifest(cur, false); err == nil {
		when = ", saved " + m.Created.Local().Format("2006-01-02 15:04")
	}
	n := quoteName(st.Name)
	return "", keptWorkError{fmt.Sprintf("refused: %s's saved contents hold work saved while it was kept (snapshot %s%s) that is in no folder, "+
		"and mirroring %s would load that folder instead and in time prune the work; choose: 'rambar create %s SIZE --keep' restores it, "+
		"'--set-aside-kept' mirrors the folder and keeps that work as snapshot %s (never pruned; 'rambar restore %s --snapshot %s' on a kept disk brings it back), "+
		"or 'rambar forget %s' deletes it and every save of %s",
		st.Name, cur, when, o.MirrorPath, n, cur, n, cur, n, st.Name)}
}

// quoteName quotes a disk name for a command line when it needs it.
func quoteName(name string) string {
	if strings.ContainsAny(name, " \t'\"\\$`!*?[]{}()<>|&;#~") {
		return "'" + strings.ReplaceAll(name, "'", `'\''`) + "'"
	}
	return name
}

// SetupNotes checks what Setup(name, o) would do before anything is made:
// the refusal Setup would give (ErrKeptWork), and notes for the plan: the
// stored settings a re-create keeps, and which snapshots a smaller
// snapshot count deletes at the next save.
func (k *Keeper) SetupNotes(name string, o Options) ([]ramdisk.Note, error) {
	if o.Mode == ramdisk.Discard {
		return nil, nil
	}
	st, err := k.State(name)
	if errors.Is(err, ErrNotKept) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := k.keptWork(st, o); err != nil {
		return nil, err
	}
	var notes []ramdisk.Note
	keptSnaps := o.Snapshots == 0 && st.Snapshots > 0 && st.Snapshots != DefaultSnapshots
	every := ramdisk.ShortDuration(time.Duration(st.SaveEvery) * time.Second)
	switch keptEvery := o.SaveEvery == 0 && st.SaveEvery > 0; {
	case keptSnaps && keptEvery:
		notes = append(notes, ramdisk.NoteOf(ramdisk.Info, ramdisk.Sayf("keeps its settings from before: %d snapshots, autosave every %s "+
			"(--snapshots and --save-every change them)", st.Snapshots, every)))
	case keptSnaps:
		notes = append(notes, ramdisk.NoteOf(ramdisk.Info, ramdisk.Sayf("keeps its settings from before: %d snapshots "+
			"(--snapshots and --save-every change them)", st.Snapshots)))
	case keptEvery:
		notes = append(notes, ramdisk.NoteOf(ramdisk.Info, ramdisk.Sayf("keeps its settings from before: autosave every %s "+
			"(--snapshots and --save-every change them)", every)))
	}
	if o.Snapshots > 0 {
		if gone := k.prunedBy(st, o.Snapshots); len(gone) > 0 {
			notes = append(notes, ramdisk.NoteOf(ramdisk.Warning, ramdisk.SayCount(len(gone),
				"keeps %d snapshots instead of %d: its next save deletes the %d oldest snapshot (%s)",
				"keeps %d snapshots instead of %d: its next save deletes the %d oldest snapshots (%s)",
				o.Snapshots, st.Snapshots, len(gone), describeSnaps(gone))))
		}
	}
	return notes, nil
}

// prunedBy lists the snapshots a save would delete once st keeps n: the
// oldest beyond the n-1 newest and the save itself (set-aside and safety
// ones stay).
func (k *Keeper) prunedBy(st State, n int) []snapstore.Snapshot {
	snaps, err := k.store(st).Snapshots()
	if err != nil {
		return nil
	}
	listed := slices.DeleteFunc(snaps, func(sn snapstore.Snapshot) bool {
		return sn.SetAside || sn.Safety != nil // safety snapshots are not counted (snapstore.Prune)
	})
	if len(listed) <= n-1 {
		return nil
	}
	return listed[:len(listed)-(n-1)]
}

// describeSnaps names snapshots by ID and time, a few of them.
func describeSnaps(snaps []snapstore.Snapshot) ramdisk.Said {
	var a []any
	for _, sn := range snaps[:min(len(snaps), 3)] {
		a = append(a, sn.ID, sn.Time.Local().Format("2006-01-02 15:04"))
	}
	// Indexed verbs: keys of their own in the catalog, not a size's "%s of %s".
	switch len(snaps) {
	case 0:
		return ramdisk.Said{}
	case 1:
		return ramdisk.Sayf("%[1]s of %[2]s", a...)
	case 2:
		return ramdisk.Sayf("%[1]s of %[2]s, %[3]s of %[4]s", a...)
	case 3:
		return ramdisk.Sayf("%[1]s of %[2]s, %[3]s of %[4]s, %[5]s of %[6]s", a...)
	}
	return ramdisk.Sayf("%[1]s of %[2]s, %[3]s of %[4]s, %[5]s of %[6]s and %[7]d more", append(a, len(snaps)-3)...)
}
