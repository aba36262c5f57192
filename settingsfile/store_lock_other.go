//go:build !unix

package settingsfile

// lock does nothing where there is no flock.
func (st Store) lock() (unlock func(), err error) { return func() {}, nil }
