package keeper

import "rambar/changefeed"

// feedMode is the kind of change feed Follow opens: FeedMode when set,
// else as the environment names it (changefeed.EnvMode: the app run by a
// test or the self-test follows its disks with the Mac's semantics).
func (k *Keeper) feedMode() changefeed.Mode {
	if k.FeedMode != changefeed.ModeNative {
		return k.FeedMode
	}
	return changefeed.ModeFromEnv()
}
