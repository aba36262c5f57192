//go:build !linux && !darwin

package changefeed

import "errors"

// Feed is not available on this system: Open fails and saves walk the disk.
type Feed struct{ *pending }

// Open fails: this system has no change feed RAMBar uses.
func Open(string, func(folder, name string) bool) (*Feed, error) {
	return OpenWith("", Options{})
}

// OpenWith fails: this system has no change feed RAMBar uses.
func OpenWith(string, Options) (*Feed, error) {
	return nil, errors.New("no change feed on this system")
}

// Watch does nothing.
func (f *Feed) Watch(int, string) {}

// Close does nothing.
func (f *Feed) Close() error { return nil }
