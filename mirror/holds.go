package mirror

// Holding is the snapshot a disk's files were last saved as or restored
// from: after `restore --snapshot` of an older save it is that one, not the
// newest. "" when it cannot be told (never saved, or the index was lost).
// Whether the disk changed since is Dirty's answer.
func (k *Keeper) Holding(name string) (string, error) {
	st, err := k.State(name)
	if err != nil {
		return "", err
	}
	if x := k.store(st).loadIndex(); x != nil {
		return x.Snapshot, nil
	}
	return "", nil
}
