package keeper

import (
	"errors"
	"fmt"
	"time"

	"rambar/ramdisk"
)

// ErrNothingToAdjust: Adjust was given neither a snapshot count nor a save
// interval.
var ErrNothingToAdjust = errors.New("nothing to change: give --save-every or --snapshots")

// Adjusted is what Adjust changed: the settings before and after, and the
// snapshots the next save deletes when the count went down.
type Adjusted struct {
	Before, After State
	// Pruned names the snapshots the next save deletes (a smaller count).
	Pruned []string
}

// Adjust changes how a kept or mirrored disk's contents are kept from now
// on, without saving or ejecting it: o.Snapshots (when above 0) and
// o.SaveEvery (when not 0: AutosaveOff, AutosaveAuto or an interval); its
// mode, folder and snapshots stay. The running menu-bar app reads the
// new settings at its next look at the disk. A name that is not kept is
// ErrNotKept.
func (k *Keeper) Adjust(name string, o Options) (Adjusted, error) {
	if o.Snapshots <= 0 && o.SaveEvery == 0 {
		return Adjusted{}, ErrNothingToAdjust
	}
	if o.SaveEvery < 0 && o.SaveEvery != AutosaveOff && o.SaveEvery != AutosaveAuto {
		return Adjusted{}, errors.New("the save interval must not be negative")
	}
	st, err := k.State(name)
	if err != nil {
		return Adjusted{}, err
	}
	a := Adjusted{Before: st}
	if o.Snapshots > 0 {
		for _, sn := range k.prunedBy(st, o.Snapshots) {
			a.Pruned = append(a.Pruned, sn.ID)
		}
		st.Snapshots = o.Snapshots
	}
	st.SetSaveEvery(o.SaveEvery)
	if err := k.writeState(st); err != nil {
		return Adjusted{}, fmt.Errorf("change the settings of %s: %w", name, err)
	}
	a.After = st
	return a, nil
}

// SavingWords says how a store's disk is saved, for a line of output:
// "saved continuously, 5 snapshots kept".
func SavingWords(st State) string {
	how := "saved at eject and by 'rambar save'"
	switch {
	case st.Continuous:
		how = "saved continuously (seconds after each change)"
	case st.SaveEvery > 0:
		how = "saved every " + ramdisk.ShortDuration(time.Duration(st.SaveEvery)*time.Second)
	}
	return fmt.Sprintf("%s, %s kept", how, ramdisk.Plural(st.Snapshots, "snapshot"))
}
